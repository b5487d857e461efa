package rules

import (
	"testing"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/render"
)

// Every check any layer can raise has a registry entry (SARIF rules, the
// README table and help text come from it), and no ID is listed twice.
func TestRegistryCoversEveryCheck(t *testing.T) {
	ids := append(render.CheckIDs(),
		analyze.CheckDanglingTarget, analyze.CheckDuplicateAutoscaler, analyze.CheckAssumptionDefault,
		analyze.CheckInvalidAnnotation, analyze.CheckUnknownAnnotation, analyze.CheckIgnoreWithoutReason,
		analyze.CheckInvalidAutoscaler, analyze.CheckKEDAV1Schema, analyze.CheckKEDAPaused,
		analyze.CheckKEDAInvalidTrigger, analyze.CheckKEDAUnknownTrigger, analyze.CheckKEDADeprecated,
		analyze.CheckKEDAIdleReplicas, analyze.CheckKEDAValueMetricType, analyze.CheckKafkaPartitions,
		analyze.CheckSignalUnknown, analyze.CheckMissingRequest,
		CheckDeadBand, CheckRecoveryTooSlow, CheckPeakWaitOverTarget, CheckHunting, CheckLatencyFloor,
		CheckStandingDelayOverTarget, CheckKafkaPartitionCap, CheckMaxReplicasBelowNeed, CheckMinEqualsMax,
		CheckUnpriced, CheckMetricNotModelled, CheckUnknownCheck)
	for _, id := range ids {
		info, ok := LookupCheck(id)
		if !ok {
			t.Errorf("check %q has no registry entry", id)
			continue
		}
		if info.Title == "" || info.Description == "" || info.Remediation == "" {
			t.Errorf("check %q: incomplete entry %+v", id, info)
		}
		switch info.Severity {
		case SeverityError, SeverityWarning, SeverityInfo:
		default:
			t.Errorf("check %q: severity %q", id, info.Severity)
		}
	}
	seen := map[string]bool{}
	for _, c := range Checks() {
		if seen[c.ID] {
			t.Errorf("check %q listed twice", c.ID)
		}
		seen[c.ID] = true
	}
	if len(seen) != len(ids) {
		t.Errorf("registry has %d checks, the layers raise %d", len(seen), len(ids))
	}
}
