package cmdutil

import (
	"math"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report/diff"
)

// Values of --fail-on-scope.
const (
	FailOnScopeNew = "new"
	FailOnScopeAll = "all"
)

// NewlyFailing counts the findings of head that fail at failOn and did not
// fail in base: what a pull request makes worse. A repository with one
// autoscaler failing before the change gets 0 for a change that leaves it
// as it was, and 1 for one that makes another fail. Findings are matched by
// what they are about (FailingKeys), each as often as it occurs.
func NewlyFailing(base, head *contract.Report, failOn string) int {
	before := map[string]int{}
	for _, k := range FailingKeys(base, failOn) {
		before[k]++
	}
	n := 0
	for _, k := range FailingKeys(head, failOn) {
		if before[k] > 0 {
			before[k]--
			continue
		}
		n++
	}
	return n
}

// FailingKeys keys the findings of r that fail at failOn (not ignored, at
// or above its severity): an autoscaler's by its id and check, one of no
// autoscaler by its check and the file it points at. Messages are left
// out: they carry figures that move with any change.
func FailingKeys(r *contract.Report, failOn string) []string {
	fails := func(f check.Finding) bool {
		switch {
		case f.Ignored || failOn == config.FailOnNever:
			return false
		case failOn == config.FailOnWarning:
			return f.Severity == check.SeverityError || f.Severity == check.SeverityWarning
		}
		return f.Severity == check.SeverityError
	}
	var keys []string
	for _, w := range r.Workloads {
		for _, f := range w.Findings {
			if fails(f) {
				keys = append(keys, w.ID+"\x00"+f.Check)
			}
		}
	}
	for _, f := range r.Findings {
		if fails(f) {
			keys = append(keys, "\x00"+f.Check+"\x00"+f.File())
		}
	}
	return keys
}

// CheckGateFlags checks --fail-on-scope and --fail-on-worse before
// anything is read or rendered.
func CheckGateFlags(scope string, worse float64) error {
	if scope != "" && scope != FailOnScopeNew && scope != FailOnScopeAll {
		return FlagErrorf("fail-on-scope", "%q is not one of new, all", scope)
	}
	if worse < 0 || math.IsNaN(worse) || math.IsInf(worse, 0) {
		return FlagErrorf("fail-on-worse", "%v is not a percentage of 0 or more", worse)
	}
	return nil
}

// WorseBills counts the autoscalers of both reports whose bill grew by
// more than percent (0 when the gate is off): a bill that doubles without
// crossing a latency target fails the gate the team set.
func WorseBills(base, head *contract.Report, percent float64) int {
	if percent <= 0 {
		return 0
	}
	return len(diff.BillsWorse(diff.Compare(*base, *head), percent))
}
