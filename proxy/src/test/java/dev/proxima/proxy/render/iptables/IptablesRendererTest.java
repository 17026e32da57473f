package dev.proxima.proxy.render.iptables;

import static dev.proxima.proxy.testing.ServicePortFixtures.remote;
import static dev.proxima.proxy.testing.ServicePortFixtures.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.proxima.proxy.model.IpFamily;
import dev.proxima.proxy.render.FamilySettings;
import dev.proxima.proxy.render.ServicePortRules;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class IptablesRendererTest {
  private static final String SVC4 = "PROXIMA-SVC-4SW47YFZTEDKD3PK";

  private static List<String> lines(FamilySettings config, ServicePortRules... services) {
    return IptablesRenderer.render(config, List.of(services)).filterAndNat().lines().toList();
  }

  /** The lines of one table section, from {@code *table} to its {@code COMMIT}. */
  private static List<String> table(List<String> lines, String table) {
    int start = lines.indexOf("*" + table);
    int end = lines.subList(start, lines.size()).indexOf("COMMIT") + start;
    return lines.subList(start + 1, end);
  }

  private static List<String> chain(List<String> lines, String table, String chain) {
    return table(lines, table).stream().filter(l -> l.startsWith("-A " + chain + " ")).toList();
  }

  /** A rule that drops or rejects for lack of endpoints: counted first, then refused. */
  private static List<String> countedThen(String refusal) {
    String match = refusal.substring(0, refusal.lastIndexOf(" -j "));
    return List.of(match + " -j PROXIMA-COUNT-NO-ENDPOINTS", refusal);
  }

  private static String sep(ServicePortRules rules, int index) {
    return IptablesChains.sep(rules.port().name(), rules.clusterOrEmpty().get(index));
  }

  @Test
  void serviceChainNamesMatchKubeProxysHashWithTheProximaPrefix() {
    // kube-proxy: ns4/svc4:p80 + tcp -> KUBE-SVC-4SW47YFZTEDKD3PK, ns1/svc1:p80 ->
    // ...XPGD46QRK7WJZT7O
    assertThat(
            IptablesChains.SVC_PREFIX
                + IptablesChains.serviceHash(IptablesCases.twoEndpoints().port().name()))
        .isEqualTo(SVC4);
    var svc1 = service("ns1/svc1", "172.30.0.41", 80).portName("p80");
    assertThat(IptablesChains.serviceHash(svc1.build().name())).isEqualTo("XPGD46QRK7WJZT7O");
    assertThat(IptablesChains.endpointHash(svc1.build().name(), remote("10.180.0.1", 80)))
        .isEqualTo("SXIVWICOYRO3J4NJ");
  }

  @Test
  void aClusterIpWithTwoEndpointsSplitsHalfAndThenTheRest() {
    ServicePortRules rules = IptablesCases.twoEndpoints();
    List<String> lines = lines(IptablesCases.v4(), rules);

    assertThat(chain(lines, "nat", "PROXIMA-SERVICES"))
        .startsWith(
            "-A PROXIMA-SERVICES -m comment --comment \"ns4/svc4:p80 cluster IP\" -m tcp -p tcp"
                + " -d 172.30.0.44 --dport 80 -j "
                + SVC4);
    assertThat(chain(lines, "nat", SVC4))
        .containsExactly(
            "-A "
                + SVC4
                + " -m comment --comment \"ns4/svc4:p80 cluster IP\" -m tcp -p tcp"
                + " -d 172.30.0.44 --dport 80 ! -s 10.0.0.0/8 -j PROXIMA-MARK-MASQ",
            "-A "
                + SVC4
                + " -m comment --comment \"ns4/svc4:p80 -> 10.180.0.4:80\""
                + " -m statistic --mode random --probability 0.5000000000 -j "
                + sep(rules, 0),
            "-A "
                + SVC4
                + " -m comment --comment \"ns4/svc4:p80 -> 10.180.0.5:80\" -j "
                + sep(rules, 1));
    assertThat(chain(lines, "nat", sep(rules, 0)))
        .containsExactly(
            "-A " + sep(rules, 0) + " -j PROXIMA-COUNT-UNKNOWN",
            "-A "
                + sep(rules, 0)
                + " -m comment --comment ns4/svc4:p80 -s 10.180.0.4 -j PROXIMA-MARK-MASQ",
            "-A "
                + sep(rules, 0)
                + " -m comment --comment ns4/svc4:p80 -m tcp -p tcp -j DNAT --to-destination"
                + " 10.180.0.4:80");
    assertThat(table(lines, "nat"))
        .contains(":" + SVC4 + " - [0:0]", ":" + sep(rules, 0) + " - [0:0]");
    assertThat(chain(lines, "filter", "PROXIMA-SERVICES")).isEmpty();
  }

  @Test
  void threeEndpointsGetOneThirdThenOneHalfThenTheRest() {
    ServicePortRules rules = IptablesCases.threeEndpoints();
    String svc = IptablesChains.SVC_PREFIX + IptablesChains.serviceHash(rules.port().name());
    List<String> dispatch =
        chain(lines(IptablesCases.v4(), rules), "nat", svc).stream()
            .filter(l -> l.contains("-j PROXIMA-SEP-"))
            .toList();

    assertThat(dispatch).hasSize(3);
    assertThat(dispatch.get(0))
        .endsWith("-m statistic --mode random --probability 0.3333333333 -j " + sep(rules, 0));
    assertThat(dispatch.get(1))
        .endsWith("-m statistic --mode random --probability 0.5000000000 -j " + sep(rules, 1));
    assertThat(dispatch.get(2))
        .endsWith("\"ns3/svc3:p80 -> 10.180.0.3:80\" -j " + sep(rules, 2))
        .doesNotContain("statistic");
  }

  @Test
  void aClusterIpWithoutEndpointsIsRejectedInFilterAndNotCapturedInNat() {
    List<String> lines = lines(IptablesCases.v4(), IptablesCases.noEndpoints());

    assertThat(chain(lines, "filter", "PROXIMA-SERVICES"))
        .containsExactlyElementsOf(
            countedThen(
                "-A PROXIMA-SERVICES -m comment --comment \"ns5/svc5:p80 has no endpoints\" -m tcp"
                    + " -p tcp -d 172.30.0.45 --dport 80 -j REJECT --reject-with"
                    + " icmp-port-unreachable"));
    assertThat(String.join("\n", table(lines, "nat"))).doesNotContain("172.30.0.45");
  }

  @Test
  void internalTrafficPolicyLocalWithoutLocalEndpointsDrops() {
    List<String> lines = lines(IptablesCases.v4(), IptablesCases.internalLocalNoneLocal());

    assertThat(chain(lines, "filter", "PROXIMA-SERVICES"))
        .containsExactlyElementsOf(
            countedThen(
                "-A PROXIMA-SERVICES -m comment --comment \"ns6/svc6:p80 has no local endpoints\""
                    + " -m tcp -p tcp -d 172.30.0.46 --dport 80 -j DROP"));
    assertThat(String.join("\n", lines)).doesNotContain("PROXIMA-SVL-", "PROXIMA-SVC-");
  }

  @Test
  void externalTrafficPolicyLocalLoadBalancerWithSourceRangesGoesThroughTheFirewallChain() {
    ServicePortRules rules = IptablesCases.externalLocalLoadBalancer();
    var name = rules.port().name();
    String svc = IptablesChains.SVC_PREFIX + IptablesChains.serviceHash(name);
    String svl = IptablesChains.SVL_PREFIX + IptablesChains.serviceHash(name);
    String ext = IptablesChains.EXT_PREFIX + IptablesChains.serviceHash(name);
    String fw = IptablesChains.FW_PREFIX + IptablesChains.serviceHash(name);
    String localSep = sep(rules, 0);
    List<String> lines = lines(IptablesCases.v4(), rules);

    assertThat(chain(lines, "nat", "PROXIMA-SERVICES"))
        .contains(
            "-A PROXIMA-SERVICES -m comment --comment \"ns7/svc7:http loadbalancer IP\" -m tcp"
                + " -p tcp -d 1.2.3.4 --dport 80 -j "
                + fw);
    assertThat(chain(lines, "nat", fw))
        .containsExactly(
            "-A "
                + fw
                + " -m comment --comment \"ns7/svc7:http loadbalancer IP\""
                + " -s 203.0.113.0/24 -j "
                + ext,
            "-A "
                + fw
                + " -m comment --comment \"ns7/svc7:http loadbalancer IP\""
                + " -s 198.51.100.0/24 -j "
                + ext,
            "-A "
                + fw
                + " -m comment --comment \"other traffic to ns7/svc7:http will be dropped"
                + " by PROXIMA-FIREWALL\"");
    assertThat(chain(lines, "filter", "PROXIMA-FIREWALL"))
        .containsExactly(
            "-A PROXIMA-FIREWALL -m comment --comment \"ns7/svc7:http traffic not accepted by "
                + fw
                + "\" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j DROP");
    assertThat(chain(lines, "nat", ext))
        .containsExactly(
            "-A "
                + ext
                + " -m comment --comment \"pod traffic for ns7/svc7:http external"
                + " destinations\" -s 10.0.0.0/8 -j "
                + svc,
            "-A "
                + ext
                + " -m comment --comment \"masquerade LOCAL traffic for ns7/svc7:http"
                + " external destinations\" -m addrtype --src-type LOCAL -j PROXIMA-MARK-MASQ",
            "-A "
                + ext
                + " -m comment --comment \"route LOCAL traffic for ns7/svc7:http external"
                + " destinations\" -m addrtype --src-type LOCAL -j "
                + svc,
            "-A " + ext + " -j " + svl);
    assertThat(chain(lines, "nat", svl))
        .containsExactly(
            "-A "
                + svl
                + " -m comment --comment \"ns7/svc7:http -> 10.180.0.7:8080\" -j "
                + localSep);
    assertThat(chain(lines, "nat", "PROXIMA-NODEPORTS"))
        .containsExactly(
            "-A PROXIMA-NODEPORTS -m comment --comment ns7/svc7:http -m tcp -p tcp --dport 30007"
                + " -j "
                + ext);
    assertThat(chain(lines, "filter", "PROXIMA-NODEPORTS"))
        .containsExactly(
            "-A PROXIMA-NODEPORTS -m comment --comment \"ns7/svc7:http health check node port\""
                + " -m tcp -p tcp --dport 30107 -j ACCEPT");
    assertThat(chain(lines, "filter", "PROXIMA-EXTERNAL-SERVICES")).isEmpty();
  }

  @Test
  void externalTrafficPolicyLocalWithoutLocalEndpointsDropsExternalAddressesOnly() {
    List<String> lines = lines(IptablesCases.v4(), IptablesCases.externalLocalNoLocalEndpoints());

    var expected = new ArrayList<String>();
    expected.addAll(
        countedThen(
            "-A PROXIMA-EXTERNAL-SERVICES -m comment --comment \"ns11/svc11 has no local"
                + " endpoints\" -m tcp -p tcp -d 192.0.2.11 --dport 80 -j DROP"));
    expected.addAll(
        countedThen(
            "-A PROXIMA-EXTERNAL-SERVICES -m comment --comment \"ns11/svc11 has no local"
                + " endpoints\" -m tcp -p tcp -d 1.2.3.11 --dport 80 -j DROP"));
    expected.addAll(
        countedThen(
            "-A PROXIMA-EXTERNAL-SERVICES -m comment --comment \"ns11/svc11 has no local"
                + " endpoints\" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 30011 -j"
                + " DROP"));
    assertThat(chain(lines, "filter", "PROXIMA-EXTERNAL-SERVICES"))
        .containsExactlyElementsOf(expected);
    assertThat(chain(lines, "filter", "PROXIMA-SERVICES")).isEmpty();
    String ext =
        IptablesChains.EXT_PREFIX
            + IptablesChains.serviceHash(
                IptablesCases.externalLocalNoLocalEndpoints().port().name());
    assertThat(chain(lines, "nat", ext)).noneMatch(l -> l.contains("PROXIMA-SVL-"));
  }

  @Test
  void externalAddressesWithoutAnyEndpointsAreRejected() {
    List<String> lines = lines(IptablesCases.v4(), IptablesCases.externalNoEndpoints());

    assertThat(chain(lines, "filter", "PROXIMA-EXTERNAL-SERVICES"))
        .hasSize(6)
        .allMatch(l -> l.contains("\"ns12/svc12 has no endpoints\""))
        .filteredOn(l -> l.endsWith("-j REJECT --reject-with icmp-port-unreachable"))
        .hasSize(3);
    assertThat(chain(lines, "nat", "PROXIMA-NODEPORTS")).isEmpty();
  }

  @Test
  void nodePortsMatchEveryLocalAddressButLoopbackByDefault() {
    ServicePortRules rules = IptablesCases.nodePort();
    String ext = IptablesChains.EXT_PREFIX + IptablesChains.serviceHash(rules.port().name());
    String svc = IptablesChains.SVC_PREFIX + IptablesChains.serviceHash(rules.port().name());
    List<String> lines = lines(IptablesCases.v4(), rules);

    List<String> services = chain(lines, "nat", "PROXIMA-SERVICES");
    assertThat(services.get(services.size() - 1))
        .isEqualTo(
            "-A PROXIMA-SERVICES -m comment --comment \"proxima service nodeports; NOTE: this must"
                + " be the last rule in this chain\" -m addrtype --dst-type LOCAL"
                + " ! -d 127.0.0.0/8 -j PROXIMA-NODEPORTS");
    assertThat(services)
        .contains(
            "-A PROXIMA-SERVICES -m comment --comment \"ns8/svc8:dns external IP\" -m udp -p udp"
                + " -d 192.0.2.8 --dport 53 -j "
                + ext);
    assertThat(chain(lines, "nat", "PROXIMA-NODEPORTS"))
        .containsExactly(
            "-A PROXIMA-NODEPORTS -m comment --comment ns8/svc8:dns -m udp -p udp --dport 30053"
                + " -j "
                + ext);
    assertThat(chain(lines, "nat", ext))
        .containsExactly(
            "-A "
                + ext
                + " -m comment --comment \"masquerade traffic for ns8/svc8:dns external"
                + " destinations\" -j PROXIMA-MARK-MASQ",
            "-A " + ext + " -j " + svc);
  }

  @Test
  void nodePortAddressesReplaceTheAddrtypeMatchWithOneRulePerAddress() {
    List<String> lines =
        lines(
            IptablesCases.v4().withNodePortAddresses(List.of("192.168.1.10", "192.168.2.10")),
            IptablesCases.nodePort());

    List<String> services = chain(lines, "nat", "PROXIMA-SERVICES");
    assertThat(services.subList(services.size() - 2, services.size()))
        .allMatch(l -> l.contains("NOTE: this must be the last rule"))
        .extracting(l -> l.replaceAll(".*\" ", ""))
        .containsExactly(
            "-d 192.168.1.10 -j PROXIMA-NODEPORTS", "-d 192.168.2.10 -j PROXIMA-NODEPORTS");
    assertThat(String.join("\n", table(lines, "nat"))).doesNotContain("--dst-type LOCAL");
  }

  @Test
  void sessionAffinityChecksRecentListsBeforeTheRandomChoiceAndSetsThemInTheEndpointChain() {
    ServicePortRules rules = IptablesCases.sticky();
    String svc = IptablesChains.SVC_PREFIX + IptablesChains.serviceHash(rules.port().name());
    List<String> lines = lines(IptablesCases.v4(), rules);

    assertThat(chain(lines, "nat", svc))
        .extracting(l -> l.replaceAll("-m comment --comment \"[^\"]*\" ", ""))
        .containsExactly(
            "-A "
                + svc
                + " -m tcp -p tcp -d 172.30.0.49 --dport 443 ! -s 10.0.0.0/8"
                + " -j PROXIMA-MARK-MASQ",
            "-A "
                + svc
                + " -m recent --name "
                + sep(rules, 0)
                + " --rcheck --seconds 10800 --reap -j "
                + sep(rules, 0),
            "-A "
                + svc
                + " -m recent --name "
                + sep(rules, 1)
                + " --rcheck --seconds 10800 --reap -j "
                + sep(rules, 1),
            "-A "
                + svc
                + " -m statistic --mode random --probability 0.5000000000 -j "
                + sep(rules, 0),
            "-A " + svc + " -j " + sep(rules, 1));
    assertThat(chain(lines, "nat", sep(rules, 1)))
        .contains(
            "-A "
                + sep(rules, 1)
                + " -m comment --comment ns9/svc9:https -m recent --name "
                + sep(rules, 1)
                + " --set -m tcp -p tcp -j DNAT --to-destination 10.180.0.10:8443");
  }

  @Test
  void masqueradeAllMarksEveryClusterIpConnection() {
    List<String> lines =
        lines(IptablesCases.v4().withMasqueradeAll(true), IptablesCases.twoEndpoints());

    assertThat(chain(lines, "nat", SVC4).get(0))
        .isEqualTo(
            "-A "
                + SVC4
                + " -m comment --comment \"ns4/svc4:p80 cluster IP\" -m tcp -p tcp"
                + " -d 172.30.0.44 --dport 80 -j PROXIMA-MARK-MASQ");
  }

  @Test
  void withoutClusterCidrsOnlyHairpinTrafficIsMasqueraded() {
    List<String> lines =
        lines(FamilySettings.of(IpFamily.IPV4, List.of()), IptablesCases.twoEndpoints());

    assertThat(chain(lines, "nat", SVC4)).noneMatch(l -> l.contains("cluster IP"));
  }

  @Test
  void severalClusterCidrsGoThroughTheNonPodMasqueradeChain() {
    List<String> lines =
        lines(
            FamilySettings.of(IpFamily.IPV4, List.of("10.0.0.0/16", "10.1.0.0/16")),
            IptablesCases.twoEndpoints());

    assertThat(chain(lines, "nat", IptablesChains.MASQ_NON_POD))
        .containsExactly(
            "-A PROXIMA-MASQ-NON-POD -s 10.0.0.0/16 -j RETURN",
            "-A PROXIMA-MASQ-NON-POD -s 10.1.0.0/16 -j RETURN",
            "-A PROXIMA-MASQ-NON-POD -j PROXIMA-MARK-MASQ");
    assertThat(chain(lines, "nat", SVC4).get(0)).endsWith("--dport 80 -j PROXIMA-MASQ-NON-POD");
  }

  @Test
  void theMasqueradeChainsUseTheConfiguredMark() {
    List<String> lines = lines(IptablesCases.v4());

    assertThat(chain(lines, "nat", "PROXIMA-POSTROUTING"))
        .containsExactly(
            "-A PROXIMA-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN",
            "-A PROXIMA-POSTROUTING -j MARK --xor-mark 0x4000",
            "-A PROXIMA-POSTROUTING -m comment --comment \"proxima service traffic requiring"
                + " SNAT\" -j MASQUERADE --random-fully");
    assertThat(chain(lines, "nat", "PROXIMA-MARK-MASQ"))
        .containsExactly("-A PROXIMA-MARK-MASQ -j MARK --or-mark 0x4000");
    assertThat(chain(lines(IptablesCases.v4().withMasqueradeBit(0)), "nat", "PROXIMA-MARK-MASQ"))
        .containsExactly("-A PROXIMA-MARK-MASQ -j MARK --or-mark 0x1");
    assertThat(chain(lines, "filter", "PROXIMA-FORWARD"))
        .contains(
            "-A PROXIMA-FORWARD -m comment --comment \"proxima forwarding rules\" -m mark"
                + " --mark 0x4000/0x4000 -j ACCEPT");
  }

  @Test
  void ipv6UsesIcmp6RejectsBracketedDnatAndTheV6Loopback() {
    ServicePortRules v6 = IptablesCases.v6Service();
    List<String> lines = lines(IptablesCases.v6(), v6, IptablesCases.v6NoEndpoints());

    assertThat(chain(lines, "filter", "PROXIMA-SERVICES"))
        .containsExactlyElementsOf(
            countedThen(
                "-A PROXIMA-SERVICES -m comment --comment \"ns6/v6none has no endpoints\" -m tcp"
                    + " -p tcp -d fd00:172::2 --dport 80 -j REJECT --reject-with"
                    + " icmp6-port-unreachable"));
    assertThat(chain(lines, "nat", sep(v6, 0)))
        .containsExactly(
            "-A " + sep(v6, 0) + " -j PROXIMA-COUNT-UNKNOWN",
            "-A "
                + sep(v6, 0)
                + " -m comment --comment ns6/v6:p80 -s fd00:10::5"
                + " -j PROXIMA-MARK-MASQ",
            "-A "
                + sep(v6, 0)
                + " -m comment --comment ns6/v6:p80 -m tcp -p tcp -j DNAT"
                + " --to-destination [fd00:10::5]:8080");
    assertThat(chain(lines, "nat", "PROXIMA-SERVICES"))
        .last()
        .asString()
        .endsWith("-m addrtype --dst-type LOCAL ! -d ::1/128 -j PROXIMA-NODEPORTS");
    assertThat(
            chain(
                    lines,
                    "nat",
                    IptablesChains.SVC_PREFIX + IptablesChains.serviceHash(v6.port().name()))
                .get(0))
        .endsWith("-d fd00:172::1 --dport 80 ! -s fd00:10::/64 -j PROXIMA-MARK-MASQ");
  }

  @Test
  void addressesOfTheOtherFamilyAreSkippedWithAWarning() {
    ServicePortRules mixed =
        service("ns/mixed", "172.30.0.60", 80)
            .externalIps("2001:db8::1", "192.0.2.60")
            .cluster(remote("fd00::1", 80), remote("10.180.0.60", 80));
    IptablesRendering rendering = IptablesRenderer.render(IptablesCases.v4(), List.of(mixed));

    assertThat(rendering.warnings())
        .containsExactly(
            "ns/mixed: externalIP 2001:db8::1 is not an IPv4 address; skipped",
            "ns/mixed: endpoint [fd00::1]:80 is not an IPv4 address");
    assertThat(rendering.filterAndNat()).doesNotContain("2001:db8::1", "fd00::1");
    assertThat(rendering.filterAndNat()).doesNotContain("--probability");
  }

  @Test
  void everyChainNameIsAtMost28CharactersAndEveryUsedChainIsDeclaredInItsTable() {
    for (IptablesCases.Case c : IptablesCases.all()) {
      List<String> lines = c.buffer().lines().toList();
      for (String table : List.of("filter", "nat")) {
        Set<String> declared = new HashSet<>();
        Set<String> used = new HashSet<>();
        Pattern chainRef = Pattern.compile("(?:^-A |-j |--name )(PROXIMA-[A-Z0-9-]+)");
        for (String line : table(lines, table)) {
          if (line.startsWith(":")) {
            declared.add(line.substring(1, line.indexOf(' ')));
          }
          Matcher m = chainRef.matcher(line);
          while (m.find()) {
            if (!m.group(0).startsWith("--name")) {
              used.add(m.group(1));
            }
          }
        }
        assertThat(declared).as("%s %s", c, table).containsAll(used);
        assertThat(declared)
            .as("%s %s", c, table)
            .allMatch(name -> name.length() <= IptablesChains.MAX_LENGTH);
      }
    }
  }

  @Test
  void renderingIsDeterministicWhateverTheInputOrder() {
    List<ServicePortRules> services =
        new ArrayList<>(
            List.of(
                IptablesCases.twoEndpoints(),
                IptablesCases.threeEndpoints(),
                IptablesCases.noEndpoints(),
                IptablesCases.externalLocalLoadBalancer(),
                IptablesCases.nodePort(),
                IptablesCases.sticky()));
    String first = IptablesRenderer.render(IptablesCases.v4(), services).filterAndNat();
    Collections.reverse(services);
    String reversed = IptablesRenderer.render(IptablesCases.v4(), services).filterAndNat();
    Collections.shuffle(services, new java.util.Random(7));
    String shuffled = IptablesRenderer.render(IptablesCases.v4(), services).filterAndNat();

    assertThat(reversed).isEqualTo(first);
    assertThat(shuffled).isEqualTo(first);
    List<String> clusterIpRules =
        chain(first.lines().toList(), "nat", "PROXIMA-SERVICES").stream()
            .filter(l -> l.contains("cluster IP"))
            .toList();
    assertThat(clusterIpRules.get(0)).contains("ns3/svc3:p80");
    assertThat(clusterIpRules.get(1)).contains("ns4/svc4:p80");
  }

  @Test
  void aServicePortGivenTwiceIsRenderedOnceWithAWarning() {
    IptablesRendering rendering =
        IptablesRenderer.render(
            IptablesCases.v4(),
            List.of(IptablesCases.twoEndpoints(), IptablesCases.twoEndpoints()));

    assertThat(rendering.warnings())
        .containsExactly("ns4/svc4:p80: Service port given twice, later one skipped");
    assertThat(rendering.filterAndNat().lines().filter(l -> l.equals(":" + SVC4 + " - [0:0]")))
        .hasSize(1);
  }

  @Test
  void aboveOneThousandEndpointsThePerEndpointRulesCarryNoComment() {
    List<ServicePortRules> big = IptablesCases.manyEndpoints(1001);
    List<String> lines =
        IptablesRenderer.render(IptablesCases.v4(), big).filterAndNat().lines().toList();
    String svc = IptablesChains.SVC_PREFIX + IptablesChains.serviceHash(big.get(0).port().name());

    assertThat(table(lines, "nat").stream().filter(l -> l.startsWith("-A PROXIMA-SEP-")))
        .hasSize(3003)
        .noneMatch(l -> l.contains("-m comment"));
    assertThat(chain(lines, "nat", svc).stream().filter(l -> l.contains("-j PROXIMA-SEP-")))
        .hasSize(1001)
        .noneMatch(l -> l.contains("-m comment"));
    assertThat(chain(lines, "nat", "PROXIMA-SERVICES").get(0))
        .contains("\"big/svc:p80 cluster IP\"");

    List<String> small =
        IptablesRenderer.render(IptablesCases.v4(), IptablesCases.manyEndpoints(1000))
            .filterAndNat()
            .lines()
            .toList();
    assertThat(table(small, "nat").stream().filter(l -> l.startsWith("-A PROXIMA-SEP-")))
        .filteredOn(l -> !l.contains("-j PROXIMA-COUNT-"))
        .allMatch(l -> l.contains("-m comment --comment big/svc:p80 "));
  }

  @Test
  void jumpRulesAreCheckAndInsertArgumentListsAndRenderWithJumpsAddsThemAsInsertLines() {
    List<JumpRule> jumps = IptablesRenderer.jumpRules(IptablesCases.v4());

    assertThat(jumps).hasSize(12);
    JumpRule prerouting =
        jumps.stream().filter(j -> j.chain().equals("PREROUTING")).findFirst().orElseThrow();
    assertThat(prerouting.insertArgs())
        .containsExactly(
            "-t",
            "nat",
            "-I",
            "PREROUTING",
            "-m",
            "comment",
            "--comment",
            "proxima service portals",
            "-j",
            "PROXIMA-SERVICES");
    assertThat(prerouting.checkArgs()).element(2).isEqualTo("-C");
    assertThat(jumps)
        .extracting(j -> j.table() + " " + j.chain() + " " + j.target())
        .contains(
            "nat OUTPUT PROXIMA-SERVICES",
            "nat POSTROUTING PROXIMA-POSTROUTING",
            "filter INPUT PROXIMA-EXTERNAL-SERVICES",
            "filter FORWARD PROXIMA-FORWARD",
            "filter OUTPUT PROXIMA-FIREWALL");

    String plain = IptablesRenderer.render(IptablesCases.v4(), List.of()).filterAndNat();
    List<String> withJumps =
        IptablesRenderer.renderWithJumps(IptablesCases.v4(), List.of())
            .filterAndNat()
            .lines()
            .toList();
    assertThat(plain).doesNotContain("-I ");
    assertThat(table(withJumps, "nat"))
        .contains(
            "-I PREROUTING -m comment --comment \"proxima service portals\" -j PROXIMA-SERVICES",
            "-I POSTROUTING -m comment --comment \"proxima postrouting rules\" -j"
                + " PROXIMA-POSTROUTING");
    assertThat(table(withJumps, "filter"))
        .contains(
            "-I INPUT -m conntrack --ctstate NEW -m comment --comment \"proxima externally-visible"
                + " service portals\" -j PROXIMA-EXTERNAL-SERVICES");
    assertThat(withJumps.stream().filter(l -> l.startsWith("-I "))).hasSize(12);
  }

  @Test
  void invalidConfigurationIsRejected() {
    org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
        .isThrownBy(() -> FamilySettings.of(IpFamily.IPV4, List.of("fd00::/64")));
    org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
        .isThrownBy(() -> IptablesCases.v4().withNodePortAddresses(List.of("fd00::1")));
    org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
        .isThrownBy(() -> IptablesCases.v4().withMasqueradeBit(32));
  }
}
