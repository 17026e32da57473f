package dev.proxima.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TrainStartupCommandTest {
  @Test
  void aStartThatHasNotSyncedYetIsNotTakenForOneThatHas() {
    // What /healthz answers right after the servers start: 200, but nothing programmed.
    var starting =
        """
        {"lastUpdated": "2026-11-24T20:00:00Z", "currentTime": "2026-11-24T20:00:00Z",\
         "nodeEligible": true, "healthy": true, "status": {}}""";
    var oneFamily =
        """
        {"lastUpdated": "2026-11-24T20:00:01Z", "currentTime": "2026-11-24T20:00:01Z",\
         "nodeEligible": true, "healthy": true, "status": {"IPv4": {"lastUpdated":\
         "2026-11-24T20:00:01Z", "healthy": true}, "IPv6": {"lastUpdated": "", "healthy": true}}}""";

    assertThat(TrainStartupCommand.bothFamiliesSynced(starting)).isFalse();
    assertThat(TrainStartupCommand.bothFamiliesSynced(oneFamily)).isFalse();
    assertThat(TrainStartupCommand.bothFamiliesSynced(null)).isFalse();
  }

  @Test
  void aStartIsSyncedWhenBothFamiliesHaveProgrammedTheirRules() {
    var synced =
        """
        {"lastUpdated": "2026-11-24T20:00:02Z", "currentTime": "2026-11-24T20:00:02Z",\
         "nodeEligible": true, "healthy": true, "status": {"IPv4": {"lastUpdated":\
         "2026-11-24T20:00:01Z", "healthy": true}, "IPv6": {"lastUpdated":\
         "2026-11-24T20:00:02Z", "healthy": true}}}""";

    assertThat(TrainStartupCommand.bothFamiliesSynced(synced)).isTrue();
  }

  @Test
  void theTrainingProxysThreePortsAreNeverTheSame() throws Exception {
    for (int ask = 0; ask < 200; ask++) {
      assertThat(TrainStartupCommand.freePorts(3)).doesNotHaveDuplicates();
    }
  }
}
