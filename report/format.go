package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/units"
)

// verdictRank orders verdicts worst first, as rules defines it.
var verdictRank = contract.VerdictRank

// severityRank orders severities worst first.
func severityRank(s string) int {
	switch s {
	case check.SeverityError:
		return 0
	case check.SeverityWarning:
		return 1
	case check.SeverityInfo:
		return 2
	}
	return 3
}

// findingCounts counts the live (not ignored) findings by severity rank.
func findingCounts(fs []contract.Finding) [4]int {
	var n [4]int
	for _, f := range fs {
		if !f.Ignored {
			n[severityRank(f.Severity)]++
		}
	}
	return n
}

// WorstFirst returns the workloads in reading order for a reviewer: by
// verdict, then by the weight of their findings (more errors, then more
// warnings), then by id so the order is stable. It sorts a copy: the caller's
// report keeps its id order, which diff and merge rely on.
func WorstFirst(ws []contract.Workload) []contract.Workload {
	out := slices.Clone(ws)
	slices.SortStableFunc(out, func(a, b contract.Workload) int {
		if c := cmp.Compare(verdictRank(a.Verdict), verdictRank(b.Verdict)); c != 0 {
			return c
		}
		na, nb := findingCounts(a.Findings), findingCounts(b.Findings)
		for i := range na {
			if c := cmp.Compare(nb[i], na[i]); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

// sortedFindings puts errors before warnings before infos and ignored
// findings last, keeping the producer's order within each group.
func sortedFindings(fs []contract.Finding) []contract.Finding {
	out := slices.Clone(fs)
	slices.SortStableFunc(out, func(a, b contract.Finding) int {
		if a.Ignored != b.Ignored {
			if a.Ignored {
				return 1
			}
			return -1
		}
		return cmp.Compare(severityRank(a.Severity), severityRank(b.Severity))
	})
	return out
}

// largestOverload is the design overload the ledger row quotes: the
// largest k is the one a design is sized for.
func largestOverload(b *contract.SizeBill) *contract.SizeOverload {
	if b == nil || len(b.Overloads) == 0 {
		return nil
	}
	best := 0
	for i, o := range b.Overloads {
		if o.K > b.Overloads[best].K {
			best = i
		}
	}
	return &b.Overloads[best]
}

// The figures of every format come from package units, so that a duration
// reads the same in the terminal, the comment, the page and the plots.
var (
	secs      = units.Duration
	secsPtr   = units.SecondsOr
	overloadK = units.Multiple
	pct       = units.Percent
	num       = units.Number
	plural    = units.Plural
)

// signedPct formats a fraction as a signed percentage (mean over need).
func signedPct(f float64) string {
	s := pct(f)
	if f >= 0 {
		s = "+" + s
	}
	return s
}

// sizeKey is the ledger's one-line Size bill at the largest design overload.
func sizeKey(b *contract.SizeBill) string {
	o := largestOverload(b)
	if o == nil {
		return "no design overload priced"
	}
	rounds := "never meets it"
	if o.Rounds != nil {
		rounds = fmt.Sprintf("%d %s", *o.Rounds, plural(*o.Rounds, "round", "rounds"))
	}
	prefix := ""
	if b.DeadBand {
		prefix = "dead band (never scales on saturation); "
	}
	return fmt.Sprintf("%s%s: %s (bound %s), capacity %s, peak wait %s, %d %s vs %d needed",
		prefix, overloadK(o.K), rounds, boundText(o.RoundsBound), secsPtr(o.TimeToCapacitySeconds, "never"),
		secs(o.PeakWaitSeconds), o.PeakReplicas, plural(o.PeakReplicas, "pod", "pods"), o.NeededReplicas)
}

// timeKey is the ledger's one-line Time bill, with the first message's
// wait after an idle period when KEDA scales the consumer to zero.
func timeKey(b *contract.TimeBill) string {
	s := fmt.Sprintf("D %s vs %s required: %s, %d..%d pods (need %d)",
		secs(b.StandingDelaySeconds), secs(b.RequiredStandingDelaySeconds), huntsWord(b.Hunts),
		b.ReplicasMin, b.ReplicasMax, b.NeededReplicas)
	if z := b.ScaleFromZero; z != nil {
		s += fmt.Sprintf("; from zero the first message waits %s", secs(z.FirstMessageWaitSeconds))
	}
	return s
}

func huntsWord(h bool) string {
	if h {
		return "hunts"
	}
	return "rests"
}

// latencyKey is the pass/fail against the latency target as rules decided it.
func latencyKey(l *contract.LatencyCheck) string {
	if l == nil {
		return "no target"
	}
	word := "missed"
	if l.Met {
		word = "met"
	}
	return fmt.Sprintf("%s: %s vs %s", word, secs(l.ExpectedSeconds), secs(l.TargetSeconds))
}

// billKey is the ledger's key figure for any workload.
func billKey(w contract.Workload) string {
	switch {
	case w.Size != nil:
		return sizeKey(w.Size)
	case w.Time != nil:
		return timeKey(w.Time)
	case w.UnpricedReason != "":
		return "not priced: " + w.UnpricedReason
	}
	return "not priced"
}

// refString formats an object reference as namespace/Kind/name.
func refString(r contract.Ref) string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Namespace + "/" + r.Kind + "/" + r.Name
}

// sourceName names a source with its value set, if any.
func sourceName(s contract.Source) string {
	if s.ValueSet == "" {
		return s.Path
	}
	return s.Path + " [" + s.ValueSet + "]"
}

// sortedKeys returns a map's keys in order, for deterministic output.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// summaryLine is the one-line count of a report, from rules' Summary.
func summaryLine(s contract.Summary) string {
	return fmt.Sprintf("%d %s: %d fail, %d warn, %d pass, %d unpriced; %d %s, %d %s",
		s.Autoscalers, plural(s.Autoscalers, "autoscaler", "autoscalers"), s.Fail, s.Warn, s.Pass, s.Unpriced,
		s.Errors, plural(s.Errors, "error", "errors"), s.Warnings, plural(s.Warnings, "warning", "warnings"))
}

// joinNonEmpty joins the non-empty parts.
func joinNonEmpty(sep string, parts ...string) string {
	var kept []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, sep)
}

// boundText prints Prop. 2's bound, "none" where no number of rounds meets
// the overload.
func boundText(b *int) string {
	if b == nil {
		return "none"
	}
	return strconv.Itoa(*b)
}

// hoursText names the statistics window of a Time bill: "hour" for
// Definition 5's, else the hours it spans.
func hoursText(s int) string {
	if s == 0 || s == 3600 {
		return "hour"
	}
	return strconv.FormatFloat(float64(s)/3600, 'f', 1, 64) + " hours"
}
