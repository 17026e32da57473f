package dev.proxima.e2e.demo.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.zjsonpatch.JsonPatch;
import org.junit.jupiter.api.Test;

class JsonPatchTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static ObjectNode json(String text) throws Exception {
    return (ObjectNode) JSON.readTree(text.replace('\'', '"'));
  }

  @Test
  void thePatchBetweenTwoObjectsTurnsTheFirstIntoTheSecond() throws Exception {
    var from =
        json(
            """
            {'metadata':{'name':'web','annotations':{'a/b':'1','x~y':'2'},'resourceVersion':'7'},
             'spec':{'ports':[{'port':80},{'port':81}],'old':true}}
            """);
    var to =
        json(
            """
            {'metadata':{'name':'web','annotations':{'a/b':'3','new':'4'},'resourceVersion':'7'},
             'spec':{'ports':[{'port':80}],'added':{'k':'v'}}}
            """);

    var operations = dev.proxima.e2e.demo.api.JsonPatch.between(from, to);

    assertThat(JsonPatch.apply(operations, from)).isEqualTo(to);
    // Unchanged fields are left alone, so the patch cannot undo a concurrent write to them.
    assertThat(operations.toString()).doesNotContain("resourceVersion").doesNotContain("\"name\"");
  }

  @Test
  void aMergePatchReplacesListsInsteadOfAppendingToThem() throws Exception {
    var current = json("{'spec':{'ports':[{'port':80},{'port':81}],'type':'ClusterIP'}}");

    var patched =
        JsonMergePatch.apply(current, json("{'spec':{'ports':[{'port':82}],'type':null}}"));

    assertThat(patched).isEqualTo(json("{'spec':{'ports':[{'port':82}]}}"));
  }
}
