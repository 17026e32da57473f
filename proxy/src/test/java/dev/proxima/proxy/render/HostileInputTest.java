package dev.proxima.proxy.render;

import static dev.proxima.proxy.testing.ApiObjects.service;
import static dev.proxima.proxy.testing.ApiObjects.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.proxima.model.ZoneDemand;
import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.model.ProxyMode;
import dev.proxima.proxy.plan.AddressPolicy;
import dev.proxima.proxy.plan.NftPlanRenderer;
import dev.proxima.proxy.plan.NodePlanner;
import dev.proxima.proxy.plan.RuleSettings;
import dev.proxima.proxy.render.iptables.IptablesRenderer;
import dev.proxima.proxy.testing.HostTools;
import dev.proxima.proxy.testing.RootTier;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Services and EndpointSlices written by a hostile tenant, through the whole offline pipeline
 * (catalog, planner, renderer) in both modes; where the finding is about what the tool accepts, the
 * rules are loaded with the real {@code nft} or {@code iptables-restore} into a scratch network
 * namespace. Every test here failed before the catalog parsed its input once, at the edge.
 */
class HostileInputTest {
  private static final String VICTIM_ENDPOINT = "10.244.1.5";
  private static final String ATTACKER_ENDPOINT = "10.244.9.9";

  @TempDir Path directory;
  private final List<String> namespaces = new ArrayList<>();

  @AfterEach
  void deleteNamespaces() {
    namespaces.forEach(ns -> HostTools.run(directory, "ip", "netns", "del", ns));
  }

  // ------------------------------------------------------------------ 1. address-key theft

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aClusterIpKeepsItsAddressWhenAnotherServiceNamesItAsAnExternalIp(ProxyMode mode) {
    var attacker = service("evil", "a", "10.96.0.99").externalIps("10.96.0.10").build();
    var victim = service("good", "web", "10.96.0.10").build();
    var slices =
        List.of(slice("evil", "a", ATTACKER_ENDPOINT), slice("good", "web", VICTIM_ENDPOINT));

    var plan = plan(List.of(attacker, victim), slices);
    var rules = render(mode, plan);

    assertThat(rules).doesNotContain(externalIpRule(mode, "evil/a:http", "10.96.0.10"));
    assertThat(rules).contains(clusterIpRule(mode, "good/web:http", "10.96.0.10"));
    assertThat(plan.warnings())
        .as("the collision is visible, naming both Services")
        .anySatisfy(warning -> assertThat(warning).contains("evil/a", "good/web", "10.96.0.10"));
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void betweenTwoExternalIpsTheOlderServiceKeepsTheAddressWhateverTheNames(ProxyMode mode) {
    var older =
        service("zz-old", "web", "10.96.0.20")
            .created("2020-01-01T00:00:00Z", "uid-b")
            .externalIps("192.0.2.10")
            .build();
    var newer =
        service("aa-new", "web", "10.96.0.30")
            .created("2025-06-01T00:00:00Z", "uid-a")
            .externalIps("192.0.2.10")
            .build();

    var rules =
        render(
            mode,
            plan(
                List.of(newer, older),
                List.of(
                    slice("zz-old", "web", VICTIM_ENDPOINT),
                    slice("aa-new", "web", ATTACKER_ENDPOINT))));

    assertThat(rules).contains(externalIpRule(mode, "zz-old/web:http", "192.0.2.10"));
    assertThat(rules).doesNotContain(externalIpRule(mode, "aa-new/web:http", "192.0.2.10"));
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aLoadBalancerIpWinsOverAnOlderServicesExternalIp(ProxyMode mode) {
    var squatter =
        service("aa", "squat", "10.96.0.20")
            .created("2020-01-01T00:00:00Z", "uid-a")
            .externalIps("203.0.113.7")
            .build();
    var balanced =
        service("zz", "lb", "10.96.0.30")
            .created("2025-01-01T00:00:00Z", "uid-z")
            .loadBalancerIp("203.0.113.7")
            .build();

    var rules =
        render(
            mode,
            plan(
                List.of(squatter, balanced),
                List.of(
                    slice("aa", "squat", ATTACKER_ENDPOINT), slice("zz", "lb", VICTIM_ENDPOINT))));

    assertThat(rules).doesNotContain(externalIpRule(mode, "aa/squat:http", "203.0.113.7"));
  }

  // ------------------------------------------------------------------ 2. and 3. source ranges

  @RootTier
  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void aSourceRangeWithALeadingZeroMaskIsWrittenCanonicallyAndTheToolAcceptsIt(ProxyMode mode) {
    requireRootAndTools(mode);
    var firewalled =
        service("tenant", "lb", "10.96.0.40")
            .loadBalancerIp("203.0.113.40")
            .sourceRanges("10.0.0.0/08")
            .build();
    var bystander = service("other", "web", "10.96.0.41").build();

    var rules =
        render(
            mode,
            plan(
                List.of(firewalled, bystander),
                List.of(
                    slice("tenant", "lb", VICTIM_ENDPOINT), slice("other", "web", "10.244.2.2"))));

    assertThat(rules).doesNotContain("/08");
    assertThat(allowedRanges(mode, rules, "203.0.113.40")).containsExactly("10.0.0.0/8");
    load(mode, rules).assertSucceeded();
  }

  @RootTier
  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void sourceRangesTheApiServerAcceptsAreEnforcedNotDropped(ProxyMode mode) {
    requireRootAndTools(mode);
    var firewalled =
        service("tenant", "lb", "10.96.0.40")
            .loadBalancerIp("203.0.113.40")
            .sourceRanges("010.0.0.0/8", "192.168.0.0/16\u00a0", " 172.16.0.0/12 ")
            .build();

    var rules =
        render(mode, plan(List.of(firewalled), List.of(slice("tenant", "lb", VICTIM_ENDPOINT))));

    assertThat(allowedRanges(mode, rules, "203.0.113.40"))
        .containsExactlyInAnyOrder("10.0.0.0/8", "192.168.0.0/16", "172.16.0.0/12");
    load(mode, rules).assertSucceeded();
  }

  @RootTier
  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void sourceRangesThatCannotBeUnderstoodDenyEverySourceInsteadOfNone(ProxyMode mode) {
    requireRootAndTools(mode);
    var firewalled =
        service("tenant", "lb", "10.96.0.40")
            .loadBalancerIp("203.0.113.40")
            .sourceRanges("ten.zero/8", "10.0.0.0/33")
            .build();

    var plan = plan(List.of(firewalled), List.of(slice("tenant", "lb", VICTIM_ENDPOINT)));
    var rules = render(mode, plan);

    assertThat(firewalled(mode, rules, "203.0.113.40")).as(rules).isTrue();
    assertThat(allowedRanges(mode, rules, "203.0.113.40")).as(rules).isEmpty();
    assertThat(plan.warnings())
        .anySatisfy(w -> assertThat(w).contains("tenant/lb", "ten.zero/8"))
        .anySatisfy(w -> assertThat(w).contains("tenant/lb", "accept no source"));
    load(mode, rules).assertSucceeded();
  }

  // ------------------------------------------------------------------ 4. comment injection

  @RootTier
  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void namesWithNewlinesQuotesAndBackslashesCannotAddRulesOrBreakTheLoad(ProxyMode mode) {
    requireRootAndTools(mode);
    var injected = service("x\n-A PROXIMA-SERVICES -j ACCEPT\n#", "a \"b\\", "10.96.0.50").build();
    var bystander = service("other", "web", "10.96.0.51").build();
    var slices =
        List.of(
            slice("x\n-A PROXIMA-SERVICES -j ACCEPT\n#", "a \"b\\", ATTACKER_ENDPOINT),
            slice("other", "web", VICTIM_ENDPOINT));

    var rules = render(mode, plan(List.of(injected, bystander), slices));

    assertThat(rules.lines()).doesNotContain("-A PROXIMA-SERVICES -j ACCEPT");
    assertThat(rules).doesNotContain("\\", "a \"b");
    var loaded = load(mode, rules);
    loaded.assertSucceeded();
    assertThat(listRules(mode).lines()).doesNotContain("-A PROXIMA-SERVICES -j ACCEPT");
  }

  // ------------------------------------------------------------------ 5. one bad value

  @RootTier
  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void anAffinityTimeoutAboveTheApiLimitIsCutToOneDayAndEveryonesRulesLoad(ProxyMode mode) {
    requireRootAndTools(mode);
    var sticky = service("tenant", "sticky", "10.96.0.60").affinity(2147483647).build();
    var bystander = service("other", "web", "10.96.0.61").build();

    var plan =
        plan(
            List.of(sticky, bystander),
            List.of(
                slice("tenant", "sticky", ATTACKER_ENDPOINT),
                slice("other", "web", VICTIM_ENDPOINT)));
    var rules = render(mode, plan);

    assertThat(rules)
        .contains(mode == ProxyMode.nftables ? "timeout 86400s" : "--seconds 86400")
        .doesNotContain("2147483647");
    assertThat(plan.warnings())
        .anySatisfy(w -> assertThat(w).contains("tenant/sticky", "timeoutSeconds"));
    load(mode, rules).assertSucceeded();
  }

  // ------------------------------------------------------------------ 6. special addresses

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void specialAddressesAreNeverEndpointsExternalIpsOrLoadBalancerIps(ProxyMode mode) {
    var tenant =
        service("tenant", "web", "10.96.0.70")
            .externalIps("0.0.0.0", "127.0.0.1", "169.254.169.254", "192.0.2.70")
            .loadBalancerIp("224.0.0.1")
            .build();
    var endpoints =
        slice(
            "tenant",
            "web",
            "0.0.0.0",
            "127.0.0.1",
            "169.254.169.254",
            "224.0.0.5",
            "255.255.255.255",
            VICTIM_ENDPOINT);

    var plan = plan(List.of(tenant), List.of(endpoints));
    var rules = render(mode, plan);

    for (var special :
        List.of(
            "0.0.0.0",
            "127.0.0.1",
            "169.254.169.254",
            "224.0.0.1",
            "224.0.0.5",
            "255.255.255.255")) {
      assertThat(mentions(rules, special)).as(special + " in%n%s", rules).isFalse();
    }
    assertThat(rules).contains(externalIpRule(mode, "tenant/web:http", "192.0.2.70"));
    assertThat(plan.ports().get(0).endpoints())
        .extracting(e -> e.ip())
        .containsExactly(VICTIM_ENDPOINT);
    assertThat(plan.warnings())
        .anySatisfy(w -> assertThat(w).contains("tenant/web", "169.254.169.254", "link-local"))
        .anySatisfy(w -> assertThat(w).contains("EndpointSlice tenant/web-1", "127.0.0.1"));
  }

  // ------------------------------------------------------------------ 7. canonical endpoints

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void oneIpv6PodSpelledThreeWaysIsOneEndpoint(ProxyMode mode) {
    var web = service("shop", "web", "fd00:96::10").build();
    var endpoints =
        new EndpointSliceBuilder(slice("shop", "web", "fd00::1", "fd00:0::1", "FD00::1"))
            .withAddressType("IPv6")
            .build();

    var plan = planFamily(IpFamily.IPV6, List.of(web), List.of(endpoints));
    var rules = render(mode, plan);

    assertThat(plan.ports().get(0).endpoints()).extracting(e -> e.ip()).containsExactly("fd00::1");
    assertThat(rules).doesNotContain("FD00", "fd00:0::1");
    assertThat(
            mode == ProxyMode.nftables ? rules.contains("goto lb-1") : count(rules, "-j DNAT") == 1)
        .as(rules)
        .isTrue();
  }

  @ParameterizedTest
  @EnumSource(ProxyMode.class)
  void ipv4EndpointsWithLeadingZerosAreAcceptedAsTheApiServerReadsThem(ProxyMode mode) {
    var web = service("shop", "web", "10.96.0.80").build();

    var rules = render(mode, plan(List.of(web), List.of(slice("shop", "web", "010.244.001.005"))));

    assertThat(rules)
        .contains(routesTo(mode, "10.96.0.80", VICTIM_ENDPOINT))
        .doesNotContain("010.");
  }

  // ------------------------------------------------------------------ helpers

  private static NodePlanner.FamilyPlan plan(List<Service> services, List<EndpointSlice> slices) {
    return planFamily(IpFamily.IPV4, services, slices);
  }

  private static NodePlanner.FamilyPlan planFamily(
      IpFamily family, List<Service> services, List<EndpointSlice> slices) {
    return NodePlanner.plan(
        family,
        "node-a",
        null,
        null,
        services,
        slices,
        AddressPolicy.ofNode(null),
        ZoneDemand.unknown());
  }

  private static String render(ProxyMode mode, NodePlanner.FamilyPlan plan) {
    var settings = RuleSettings.defaults();
    if (mode == ProxyMode.nftables) {
      return NftPlanRenderer.render(plan, settings, List.of()).script();
    }
    return IptablesRenderer.renderWithJumps(
            settings.forFamily(plan.family(), List.of(), List.of()),
            plan.ports().stream().map(NftPlanRenderer::rules).toList())
        .filterAndNat();
  }

  /** nft: the element for the address in service-ips; iptables: the jump in PROXIMA-SERVICES. */
  private static String externalIpRule(ProxyMode mode, String portName, String address) {
    return mode == ProxyMode.nftables
        ? address + " . tcp . 80 comment \"" + portName + "\" : goto external-"
        : portName + " external IP\" -m tcp -p tcp -d " + address + " --dport 80";
  }

  private static String clusterIpRule(ProxyMode mode, String portName, String address) {
    return mode == ProxyMode.nftables
        ? address + " . tcp . 80 comment \"" + portName + "\" : goto lb-1"
        : portName + " cluster IP\" -m tcp -p tcp -d " + address + " --dport 80";
  }

  private static String routesTo(ProxyMode mode, String clusterIp, String endpoint) {
    return mode == ProxyMode.nftables
        ? clusterIp + " . tcp . 80 . 0 : " + endpoint + " . 8080"
        : "--to-destination " + endpoint + ":8080";
  }

  /** Whether the address is in the firewall: nft's firewall-ips map, iptables' DROP rule. */
  private static boolean firewalled(ProxyMode mode, String rules, String address) {
    var pattern =
        mode == ProxyMode.nftables
            ? Pattern.quote(address + " . tcp . 80 comment \"") + "[^\"]*\" : goto fw-"
            : Pattern.quote("-d " + address + " --dport 80 -j DROP");
    return Pattern.compile(pattern).matcher(rules).find();
  }

  /**
   * The sources the firewall lets through to port 80 of the address: in nft the elements of the set
   * its firewall chain checks, in iptables the source of each rule of its firewall chain.
   */
  private static List<String> allowedRanges(ProxyMode mode, String rules, String address) {
    if (mode == ProxyMode.iptables) {
      return Pattern.compile("loadbalancer IP\" -s (\\S+) ")
          .matcher(rules)
          .results()
          .map(match -> match.group(1))
          .toList();
    }
    var chain =
        Pattern.compile(
                Pattern.quote(address + " . tcp . 80 comment \"")
                    + "[^\"]*\" : goto (fw-[a-z0-9]+)")
            .matcher(rules);
    assertThat(chain.find()).as(rules).isTrue();
    var block =
        Pattern.compile(
                "add element ip proxima " + Pattern.quote(chain.group(1)) + " \\{\n([^}]*)}")
            .matcher(rules);
    if (!block.find()) {
      return List.of();
    }
    return java.util.Arrays.stream(block.group(1).split(",?\n"))
        .map(String::strip)
        .filter(element -> !element.isEmpty())
        .toList();
  }

  /** Whether the address appears on its own, not as part of a longer address or a CIDR. */
  private static boolean mentions(String rules, String address) {
    return Pattern.compile("(?<![0-9.])" + Pattern.quote(address) + "(?![0-9/])")
        .matcher(rules)
        .find();
  }

  private static long count(String text, String needle) {
    return Pattern.compile(Pattern.quote(needle)).matcher(text).results().count();
  }

  private void requireRootAndTools(ProxyMode mode) {
    assumeTrue(HostTools.onPath("ip").isPresent(), "needs ip (apt-get install iproute2)");
    assumeTrue(
        HostTools.onPath(mode == ProxyMode.nftables ? "nft" : "iptables-restore").isPresent(),
        "needs nft and iptables (apt-get install nftables iptables)");
  }

  private String namespace;

  /** Loads the rules into a fresh namespace with the mode's own tool. */
  private HostTools.Result load(ProxyMode mode, String rules) {
    namespace = "proxima-hostile-" + UUID.randomUUID().toString().substring(0, 8);
    HostTools.run(directory, "ip", "netns", "add", namespace).assertSucceeded();
    namespaces.add(namespace);
    var command =
        mode == ProxyMode.nftables
            ? List.of("nft", "-f", "-")
            : List.of("iptables-restore", "--noflush", "-w", "5");
    return HostTools.inNamespace(directory, namespace, rules, command);
  }

  private String listRules(ProxyMode mode) {
    var command =
        mode == ProxyMode.nftables ? List.of("nft", "list", "ruleset") : List.of("iptables-save");
    var listed = HostTools.inNamespace(directory, namespace, null, command);
    listed.assertSucceeded();
    return listed.stdout();
  }
}
