/**
 * The iptables data plane's renderer, pure: {@link dev.proxima.proxy.render.ServicePortRules} in,
 * {@code iptables-restore --noflush} buffers per family out; docs/architecture.md gives the layout.
 * No code reads Proxima's own text back; only the kernel's {@code iptables-save} output is read.
 */
package dev.proxima.proxy.render.iptables;
