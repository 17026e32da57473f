/**
 * The iptables data plane's renderer: a pure function from the proxy's desired state (the same
 * {@link dev.proxima.proxy.render.ServicePortRules} the nftables renderer takes) to {@code
 * iptables-restore --noflush} buffers per IP family. The chain layout and the reasons for it are in
 * docs/architecture.md.
 *
 * <p>Rules are {@link dev.proxima.proxy.render.iptables.IptablesRule} objects and only {@link
 * dev.proxima.proxy.render.iptables.IptablesRestoreText} writes them as text, sanitising every
 * comment as it does; no code reads Proxima's own text back. Text is read only where it comes from
 * the kernel ({@code iptables-save} output), and which Service port an old dispatch rule belongs to
 * is read from its comment ({@link dev.proxima.proxy.render.iptables.DispatchComments}), the one
 * thing the kernel keeps to tell.
 */
package dev.proxima.proxy.render.iptables;
