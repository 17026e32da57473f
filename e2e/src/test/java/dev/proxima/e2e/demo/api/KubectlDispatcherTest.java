package dev.proxima.e2e.demo.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class KubectlDispatcherTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SERVICES = "/api/v1/namespaces/demo/services";

  private final KubernetesCrudDispatcher store = new KubernetesCrudDispatcher();
  private final KubectlDispatcher dispatcher = new KubectlDispatcher(store);

  private static RecordedRequest request(
      HttpMethod method, String path, String contentType, String body) {
    var headers = Headers.builder();
    if (contentType != null) {
      headers.add("Content-Type", contentType);
    }
    return new RecordedRequest(
        "HTTP/1.1",
        method,
        path,
        headers.build(),
        new Buffer().writeUtf8(body == null ? "" : body.replace('\'', '"')));
  }

  private static JsonNode json(MockResponse response) throws Exception {
    return JSON.readTree(KubectlDispatcher.text(response.getBody()));
  }

  private void createWeb() {
    var created =
        dispatcher.dispatch(
            request(
                HttpMethod.POST,
                SERVICES,
                "application/json",
                "{'apiVersion':'v1','kind':'Service','metadata':{'name':'web','namespace':'demo'},"
                    + "'spec':{'ports':[{'name':'http','port':80}]}}"));
    assertThat(created.code()).isEqualTo(201);
  }

  @Test
  void discoveryNamesTheResourcesKubectlMapsShortNamesTo() throws Exception {
    var core = json(dispatcher.dispatch(request(HttpMethod.GET, "/api/v1", null, null)));
    var groups = json(dispatcher.dispatch(request(HttpMethod.GET, "/apis", null, null)));

    assertThat(core.path("resources").findValuesAsText("name"))
        .contains("nodes", "services", "events");
    assertThat(core.path("resources").findValues("shortNames").toString()).contains("svc");
    assertThat(groups.path("groups").findValuesAsText("name")).contains("discovery.k8s.io");
    assertThat(dispatcher.dispatch(request(HttpMethod.GET, "/version", null, null)).code())
        .isEqualTo(200);
  }

  @Test
  void aNewServiceGetsAClusterIpAndPortDefaultsAndAJsonContentType() throws Exception {
    createWeb();

    var web = dispatcher.dispatch(request(HttpMethod.GET, SERVICES + "/web", null, null));

    assertThat(web.header("Content-Type")).isEqualTo("application/json");
    assertThat(json(web).path("spec").path("clusterIP").asText()).startsWith("10.96.");
    assertThat(json(web).path("spec").path("ports").get(0).path("protocol").asText())
        .isEqualTo("TCP");
  }

  @Test
  void aMergePatchReplacesTheListOfPortsInsteadOfAppending() throws Exception {
    createWeb();

    var patched =
        dispatcher.dispatch(
            request(
                HttpMethod.PATCH,
                SERVICES + "/web",
                "application/merge-patch+json",
                "{'spec':{'ports':[{'name':'dns','port':53,'protocol':'UDP'}]}}"));

    assertThat(patched.code()).isLessThan(300);
    assertThat(json(patched).path("spec").path("ports").findValuesAsText("name"))
        .containsExactly("dns");
  }

  @Test
  void aStrategicMergePatchRacingAnotherWriteIsAppliedAgainToTheNewerObject() throws Exception {
    var racing =
        new KubernetesCrudDispatcher() {
          final AtomicBoolean raced = new AtomicBoolean();

          @Override
          public MockResponse handleGet(String path) {
            var snapshot = super.handleGet(path);
            if (path.endsWith("/web") && raced.compareAndSet(false, true)) {
              // Another client writes after the snapshot was taken.
              dispatch(
                  request(
                      HttpMethod.PATCH,
                      path,
                      "application/json-patch+json",
                      "[{'op':'add','path':'/metadata/labels','value':{'other':'writer'}}]"));
            }
            return snapshot;
          }
        };
    var racingDispatcher = new KubectlDispatcher(racing);
    racingDispatcher.dispatch(
        request(
            HttpMethod.POST,
            SERVICES,
            "application/json",
            "{'apiVersion':'v1','kind':'Service','metadata':{'name':'web','namespace':'demo'},"
                + "'spec':{'ports':[{'name':'http','port':80}]}}"));

    var patched =
        racingDispatcher.dispatch(
            request(
                HttpMethod.PATCH,
                SERVICES + "/web",
                "application/strategic-merge-patch+json",
                "{'spec':{'trafficDistribution':'PreferSameNode'}}"));

    assertThat(patched.code()).isLessThan(300);
    var web =
        json(racingDispatcher.dispatch(request(HttpMethod.GET, SERVICES + "/web", null, null)));
    assertThat(web.path("metadata").path("labels").path("other").asText()).isEqualTo("writer");
    assertThat(web.path("spec").path("trafficDistribution").asText()).isEqualTo("PreferSameNode");
  }

  @Test
  void whatTheMockWouldGetWrongIsRefusedWithTheAlternative() throws Exception {
    createWeb();

    var dryRun =
        dispatcher.dispatch(
            request(
                HttpMethod.PATCH,
                SERVICES + "/web?dryRun=All",
                "application/strategic-merge-patch+json",
                "{}"));
    var pod =
        dispatcher.dispatch(
            request(
                HttpMethod.POST,
                "/api/v1/namespaces/demo/pods",
                "application/json",
                "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p','namespace':'demo'}}"));
    var podPatch =
        dispatcher.dispatch(
            request(
                HttpMethod.PATCH,
                "/api/v1/namespaces/demo/pods/p",
                "application/strategic-merge-patch+json",
                "{'spec':{}}"));

    assertThat(dryRun.code()).isEqualTo(400);
    assertThat(json(dryRun).path("message").asText()).contains("--dry-run=client");
    assertThat(pod.code()).isEqualTo(201);
    assertThat(podPatch.code()).isEqualTo(415);
    assertThat(json(podPatch).path("message").asText()).contains("--type=merge");
  }
}
