package dev.proxima.proxy.conntrack;

/**
 * One UDP conntrack entry, reduced to what stale-flow detection needs: where the client sent it,
 * and who answers (after DNAT, the endpoint; without DNAT, the original destination).
 */
public record UdpFlow(
    String originalDestination, int originalDestinationPort, String replySource) {}
