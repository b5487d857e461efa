package rules

import (
	"maps"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/contract"
)

// The assumptions that decide each ledger check. A check not listed needs
// none: it follows from the manifests alone (a dead band, min = max).
// Only guesses count: the cluster's settings and metric window have
// Kubernetes' own defaults, and a saturated efficiency of 1 can only make
// a bill better than it is. The Size row is scale-free while demand is
// derived from the manifest (baseline pods at target): then the pod rate
// and demand decide nothing, and the overload does; a stated demand brings
// both in. Hunting is decided by Proposition 4 (dead time against the
// standing delay, threshold over pod rate), not by the step.
var (
	sizeBasis = map[string][]string{
		check.MaxReplicasBelowNeed: {"overload"},
		check.RecoveryTooSlow:      {"deadTime", "overload", "latencyTarget"},
		check.PeakWaitOverTarget:   {"deadTime", "overload", "latencyTarget"},
	}
	timeBasis = map[string][]string{
		check.Hunting:                 {"deadTime", "podRate"},
		check.MaxReplicasBelowNeed:    {"step", "demand", "podRate"},
		check.KafkaPartitionCap:       {"step", "demand", "podRate"},
		check.LatencyFloor:            {"deadTime", "latencyTarget"},
		check.StandingDelayOverTarget: {"podRate", "latencyTarget"},
		// The polling interval is the manifest's (or KEDA's own default),
		// not a guess; the activation wait adds the demand (timeBasisOf).
		check.FirstMessageWaitOverTarget: {"deadTime", "latencyTarget"},
	}
	// activationBasis replaces timeBasis's entries when an activation
	// threshold makes the first message wait for more messages to arrive.
	activationBasis = map[string][]string{
		check.FirstMessageWaitOverTarget: {"deadTime", "latencyTarget", "demand", "podRate"},
	}
)

// timeBasisOf adds the demand and the pod rate (from which an unstated
// demand is derived) to the first message's wait when an activation
// threshold above one message makes it wait for more to arrive.
func timeBasisOf(t *contract.TimeBill) map[string][]string {
	if z := t.ScaleFromZero; z == nil || z.ActivationWaitSeconds <= 0 {
		return timeBasis
	}
	out := maps.Clone(timeBasis)
	maps.Copy(out, activationBasis)
	return out
}

// sizeBasisOf adds the demand and pod rate to the Size row's checks when
// the demand is stated rather than derived.
func sizeBasisOf(as map[string]contract.Assumption) map[string][]string {
	if d, ok := as["demand"]; !ok || d.From == analyze.FromDefault {
		return sizeBasis
	}
	out := make(map[string][]string, len(sizeBasis))
	for id, keys := range sizeBasis {
		out[id] = append(append([]string(nil), keys...), "demand", "podRate")
	}
	return out
}

// basisOf lists the assumptions behind one check, with their provenance.
func basisOf(keys []string, as map[string]contract.Assumption) []contract.Basis {
	out := make([]contract.Basis, 0, len(keys))
	for _, k := range keys {
		if a, ok := as[k]; ok {
			out = append(out, contract.Basis{Assumption: k, Value: a.Value, From: a.From})
		}
	}
	return out
}

// restOnAssumptions caps at a warning every finding a built-in default
// decides, unless strict: a verdict fails only on what the team stated or
// measured.
func restOnAssumptions(fs []contract.Finding, as map[string]contract.Assumption, strict bool) {
	for i := range fs {
		defaulted := false
		for _, b := range fs[i].RestsOn {
			defaulted = defaulted || b.From == analyze.FromDefault
		}
		if !defaulted {
			continue
		}
		fs[i].RestsOnDefaults = true
		if !strict && fs[i].Severity == check.SeverityError {
			fs[i].Severity = check.SeverityWarning
		}
	}
}

// restsOnDefaults: a live finding was capped because it rests on defaults.
func restsOnDefaults(fs []contract.Finding) bool {
	for _, f := range fs {
		if !f.Ignored && f.Capped() {
			return true
		}
	}
	return false
}
