package dev.proxima.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KernelListingTest {
  private static final String TABLE =
      """
      table ip proxima {
      \tmap cluster-endpoints {
      \t\ttype ipv4_addr . inet_proto . inet_service . integer : ipv4_addr . inet_service
      \t\telements = { 10.96.0.1 . tcp . 80 . 0 : 10.128.0.1 . 8080,
      \t\t\t     10.96.0.1 . tcp . 80 . 1 : 10.128.0.2 . 8080 }
      \t}

      \tchain services {
      \t\tip daddr . meta l4proto . th dport vmap @service-ips
      \t}
      }
      """;

  @Test
  void aTableListingItsElementsInAnotherOrderProgramsTheSame() {
    var reordered =
        TABLE.replace(
            "10.96.0.1 . tcp . 80 . 0 : 10.128.0.1 . 8080,\n\t\t\t     10.96.0.1 . tcp . 80 . 1 :"
                + " 10.128.0.2 . 8080",
            "10.96.0.1 . tcp . 80 . 1 : 10.128.0.2 . 8080,\n\t\t\t     10.96.0.1 . tcp . 80 . 0 :"
                + " 10.128.0.1 . 8080");
    assertThat(reordered).isNotEqualTo(TABLE);

    assertThat(
            KernelListing.difference(
                KernelListing.programmed(reordered), KernelListing.programmed(TABLE)))
        .isEmpty();
  }

  @Test
  void anEndpointTheKernelStillHoldsIsReported() {
    var stale = TABLE.replace("10.128.0.2 . 8080", "10.195.0.9 . 8080");

    assertThat(
            KernelListing.difference(
                KernelListing.programmed(stale), KernelListing.programmed(TABLE)))
        .contains("map cluster-endpoints")
        .contains("10.195.0.9 . 8080");
  }

  @Test
  void anEmptyChainAPartialSyncLeftBehindDoesNotCount() {
    var withEmptyChain = TABLE.replace("\n}\n", "\n\tchain svc-gone {\n\t}\n}\n");
    assertThat(withEmptyChain).contains("chain svc-gone");

    assertThat(
            KernelListing.difference(
                KernelListing.programmed(withEmptyChain), KernelListing.programmed(TABLE)))
        .isEmpty();
  }

  @Test
  void aChainOnlyTheKernelHasIsReported() {
    var withChain = TABLE.replace("\n}\n", "\n\tchain svc-gone {\n\t\tjump endpoint-x\n\t}\n}\n");

    assertThat(
            KernelListing.difference(
                KernelListing.programmed(withChain), KernelListing.programmed(TABLE)))
        .startsWith("1 blocks only in the kernel [chain svc-gone {]");
  }
}
