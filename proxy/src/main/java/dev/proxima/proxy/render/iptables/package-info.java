/**
 * The iptables data plane's renderer: a pure function from the proxy's desired state (the same
 * {@link dev.proxima.proxy.render.ServicePortRules} the nftables renderer takes) to one {@code
 * iptables-restore --noflush} buffer per IP family.
 *
 * <h2>Layout</h2>
 *
 * Semantics and layout are kube-proxy's iptables mode, with Proxima's own {@code PROXIMA-} chain
 * prefix so that both can coexist on a node:
 *
 * <pre>
 * nat PREROUTING, OUTPUT ─▶ PROXIMA-SERVICES
 *   -d clusterIP  --dport p ─▶ PROXIMA-SVC-H (iTP=Cluster) | PROXIMA-SVL-H (iTP=Local)
 *   -d externalIP --dport p ─▶ PROXIMA-EXT-H
 *   -d lbIP       --dport p ─▶ PROXIMA-FW-H (with source ranges) | PROXIMA-EXT-H
 *   last rule: addrtype LOCAL (or -d nodeIP per nodePortAddresses) ─▶ PROXIMA-NODEPORTS
 * PROXIMA-NODEPORTS  --dport nodePort ─▶ PROXIMA-EXT-H
 * PROXIMA-FW-H    -s range ─▶ PROXIMA-EXT-H; the rest falls through to filter PROXIMA-FIREWALL DROP
 * PROXIMA-EXT-H   eTP=Cluster: mark masq, ─▶ SVC; eTP=Local: pod/LOCAL short-circuit ─▶ SVC, ─▶ SVL
 * PROXIMA-SVC-H / SVL-H  [masq rule] [-m recent --rcheck] -m statistic ─▶ PROXIMA-SEP-E
 * PROXIMA-SEP-E   hairpin mark masq; [-m recent --set] DNAT
 * nat POSTROUTING ─▶ PROXIMA-POSTROUTING: ! mark RETURN; xor-mark; MASQUERADE --random-fully
 * filter INPUT/FORWARD/OUTPUT ─▶ PROXIMA-SERVICES / PROXIMA-EXTERNAL-SERVICES (REJECT/DROP without
 *   endpoints), PROXIMA-NODEPORTS (health-check ports), PROXIMA-FORWARD, PROXIMA-FIREWALL
 * </pre>
 *
 * <p>H = first 16 characters of base32(sha256(servicePortName + protocol)), E the same over the
 * endpoint address too; names are at most 28 characters.
 *
 * <h2>Objects, then text</h2>
 *
 * Rules are {@link dev.proxima.proxy.render.iptables.IptablesRule} objects (table, chain, comment,
 * matches and target), each restore input an {@link
 * dev.proxima.proxy.render.iptables.IptablesTransaction} of operations (declare a chain, append,
 * insert at a position, delete a rule or a position, delete a chain, a jump from a built-in chain).
 * {@link dev.proxima.proxy.render.iptables.ServiceChainsRenderer} builds a Service port's rules,
 * {@link dev.proxima.proxy.render.iptables.IptablesAssembler} and {@link
 * dev.proxima.proxy.render.iptables.FullSyncBatches} compare rules and build transactions, and
 * {@link dev.proxima.proxy.render.iptables.IptablesRestoreText} alone writes them as text,
 * sanitising every comment through {@link dev.proxima.proxy.render.RuleComment} as it does. No code
 * reads Proxima's own text back. Text is read only where it comes from the kernel: {@code
 * iptables-save} output, by {@link dev.proxima.proxy.render.iptables.IptablesListing}, {@link
 * dev.proxima.proxy.render.iptables.IptablesCounters} and {@link
 * dev.proxima.proxy.render.iptables.IptablesCleanup}. Which Service port an old dispatch rule in
 * the kernel belongs to is read from its comment, the port's name and an ending fixed per chain
 * ({@link dev.proxima.proxy.render.iptables.DispatchComments}), the one thing the kernel keeps to
 * tell.
 *
 * <h2>Decisions</h2>
 *
 * <ul>
 *   <li>{@link dev.proxima.proxy.render.iptables.IptablesRenderer#render} leaves the built-in
 *       chains alone: {@code --noflush} cannot test for an existing rule, so the jumps come from
 *       {@link dev.proxima.proxy.render.iptables.IptablesRenderer#jumpRules} and are ensured with
 *       {@code iptables -C || iptables -I}. {@code renderWithJumps} adds them as {@code -I} lines
 *       for display or for a fresh namespace; loading it twice duplicates the jumps.
 *   <li>With more than one cluster CIDR, the ClusterIP masquerade rule jumps to {@code
 *       PROXIMA-MASQ-NON-POD} (RETURN per CIDR, then mark), because {@code ! -s} takes one CIDR.
 *   <li>Above 1000 endpoints in total, the per-endpoint rules (SVC/SVL dispatch and SEP chains)
 *       carry no comment, as upstream's large-cluster mode; top-level rules keep theirs.
 *   <li>{@link dev.proxima.proxy.render.iptables.IptablesAssembler} keeps per-Service fragments. A
 *       partial buffer writes only the changed Services' own chains; the top-level chains are
 *       rewritten up to 1000 endpoints and edited rule by rule above, where a rewrite costs seconds
 *       with the nft backend. A large full sync goes in ordered buffers of whole Service ports that
 *       edit the dispatch chains rule by rule ({@link
 *       dev.proxima.proxy.render.iptables.FullSyncBatches}) for the same reason.
 *   <li>Addresses of the other family or invalid, out-of-range ports and a Service port given twice
 *       are skipped with a warning. No two Service ports reach the renderer with one address key
 *       ({@link dev.proxima.proxy.plan.AddressOwners} decides first), so rule order never decides
 *       who gets an address. Comments are sanitised when written, by {@link
 *       dev.proxima.proxy.render.iptables.IptablesRestoreText}. Source ranges fail closed: a port
 *       whose ranges are all unusable still gets its firewall chain, which accepts nothing.
 *   <li>NodePorts never match loopback ({@code ! -d 127.0.0.0/8}, {@code ! -d ::1/128}); there is
 *       no localhost-NodePort support, as in nftables mode.
 * </ul>
 */
package dev.proxima.proxy.render.iptables;
