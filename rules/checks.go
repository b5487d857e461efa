package rules

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/units"
)

// checksFor raises the ledger's checks on a priced (or unpriced) workload.
// The latency target doubles as the recovery target of the Size row: a
// request that arrives at the start of an overload waits at least until
// capacity meets demand.
func checksFor(a *analyze.Autoscaler, w *contract.Workload, in inputs) []contract.Finding {
	var out []contract.Finding
	adder := func(basis map[string][]string) func(string, string, ...any) {
		return func(id, format string, args ...any) {
			f := check.Raise(id, format, args...)
			f.RestsOn = basisOf(basis[id], w.Assumptions)
			out = append(out, f)
		}
	}
	add := adder(nil)
	if w.MinReplicas == w.MaxReplicas {
		add(check.MinEqualsMax, "minReplicas and maxReplicas are both %d: the autoscaler cannot change the count", w.MinReplicas)
	}
	if w.Size == nil && w.Time == nil {
		add(check.Unpriced, "not priced: %s", w.UnpricedReason)
	}
	if s := w.Size; s != nil {
		sizeChecks(s, w, in, adder(sizeBasisOf(w.Assumptions)))
		unmodelled(a, "cpu", add)
	}
	if t := w.Time; t != nil {
		timeChecks(a, t, w, in, adder(timeBasisOf(t)))
		if m, why := backlogMetric(a); why == "" {
			unmodelled(a, m.Name, add)
		}
	}
	return out
}

func sizeChecks(s *contract.SizeBill, w *contract.Workload, in inputs, add func(string, string, ...any)) {
	if s.DeadBand {
		msg := fmt.Sprintf("growth factor g = %.3f is inside the ±%g tolerance band: on a saturated metric this HPA never scales, whatever the overload", s.GrowthFactor, in.cfg.Tolerance)
		if s.GrowthFactor < 1 {
			msg = fmt.Sprintf("the target is above the most a pod can use (growth factor g = %.3f < 1): utilization never reaches it, so this HPA never scales up on CPU", s.GrowthFactor)
		}
		if a := w.Assumptions["cpuLimit"]; a.From == "default" {
			msg += "; no CPU limit is set, so this assumes the limit is the request (pods that burst above their request saturate higher)"
		}
		add(check.DeadBand, "%s", msg)
	}
	var slow, wait, short []string
	target := float64(in.latencyTarget)
	for _, o := range s.Overloads {
		k := fmtK(o.K)
		if o.NeededReplicas > int(w.MaxReplicas) {
			short = append(short, fmt.Sprintf("%s needs %d", k, o.NeededReplicas))
			continue
		}
		if in.latencyTarget <= 0 {
			continue
		}
		switch {
		case o.TimeToCapacitySeconds == nil:
			slow = append(slow, k+": never")
		case float64(*o.TimeToCapacitySeconds) > target:
			slow = append(slow, fmt.Sprintf("%s: %s in %s", k, units.Duration(float64(*o.TimeToCapacitySeconds)), units.Count(deref(o.Rounds), "round", "rounds")))
		}
		if o.PeakWaitSeconds > target {
			wait = append(wait, fmt.Sprintf("%s: %s", k, units.Duration(o.PeakWaitSeconds)))
		}
	}
	if len(short) > 0 {
		add(check.MaxReplicasBelowNeed, "maxReplicas %d is below the need at the target: %s", w.MaxReplicas, strings.Join(short, ", "))
	}
	if len(slow) > 0 {
		msg := fmt.Sprintf("capacity meets the overload later than the %s target (%s)", units.Duration(target), strings.Join(slow, "; "))
		if s.HottestTarget != nil && *s.HottestTarget > 0 {
			msg += fmt.Sprintf("; the hottest target that can meet it is %d %% (Cor. 2)", *s.HottestTarget)
		}
		add(check.RecoveryTooSlow, "%s", msg)
	}
	if len(wait) > 0 {
		add(check.PeakWaitOverTarget, "requests wait longer than the %s latency target during the overload (%s)", units.Duration(target), strings.Join(wait, "; "))
	}
}

func timeChecks(a *analyze.Autoscaler, t *contract.TimeBill, w *contract.Workload, in inputs, add func(string, string, ...any)) {
	if t.Hunts {
		msg := fmt.Sprintf("the loop hunts between %d and %d pods for %d needed (mean %s over the need): standing delay %s is below the %s the window demands",
			t.ReplicasMin, t.ReplicasMax, t.NeededReplicas, units.Percent(t.MeanOverNeed), units.Duration(t.StandingDelaySeconds), units.Duration(t.RequiredStandingDelaySeconds))
		if t.ThresholdToRest != nil {
			msg += fmt.Sprintf("; a threshold of %s per pod rests", strconv.FormatFloat(*t.ThresholdToRest, 'f', -1, 64))
		}
		add(check.Hunting, "%s", msg)
	}
	if t.NeededReplicas > int(w.MaxReplicas) {
		add(check.MaxReplicasBelowNeed, "maxReplicas %d is below the %d pods the stepped demand needs", w.MaxReplicas, t.NeededReplicas)
	}
	for _, m := range a.Metrics {
		if m.ReplicaCap != nil && int(*m.ReplicaCap) < t.NeededReplicas {
			add(check.KafkaPartitionCap, "the topic's %d partitions cap the consumers below the %d the stepped demand needs", *m.ReplicaCap, t.NeededReplicas)
		}
	}
	if in.latencyTarget <= 0 {
		return
	}
	target := float64(in.latencyTarget)
	if target < t.LatencyFloorSeconds {
		add(check.LatencyFloor, "a %s latency target is below the %s floor this dead time and window set (τ_eff·Φ(W_eff/τ_eff), Cor. 3): no threshold holds it at rest",
			units.Duration(target), units.Duration(t.LatencyFloorSeconds))
	}
	if t.StandingDelaySeconds > target {
		add(check.StandingDelayOverTarget, "every message waits %s at rest (threshold / pod rate), above the %s latency target", units.Duration(t.StandingDelaySeconds), units.Duration(target))
	}
	scaleFromZeroCheck(t, in, add)
}

// unmodelled notes the metrics of a multi-metric HPA that the bill's model
// cannot express. The controller acts on the largest recommendation, so
// leaving one out assumes it stays at or below its target during the
// overload: the bill is then what the modelled metric alone costs.
func unmodelled(a *analyze.Autoscaler, modelled string, add func(string, string, ...any)) {
	var names []string
	for _, m := range a.Metrics {
		if m.Name != modelled {
			names = append(names, fmt.Sprintf("%s %s", m.Type, m.Name))
		}
	}
	if len(names) > 0 {
		add(check.MetricNotModelled, "priced on %s alone; %s not modelled, assumed at or below target during the overload (the controller takes the largest recommendation, so the bill is a lower bound)",
			modelled, strings.Join(names, ", "))
	}
}

// applyIgnores marks findings named by ignore-check.capreport.io/<ID>
// annotations as ignored, with their reason; when the config forbids
// ignores, each ignore annotation is itself a finding.
func applyIgnores(fs []contract.Finding, ignores map[string]string, checks config.Checks) []contract.Finding {
	if len(ignores) == 0 {
		return fs
	}
	if !checks.AllowIgnores.Value {
		ids := make([]string, 0, len(ignores))
		for id := range ignores {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			f := check.Raise(check.IgnoreWithoutReason, "ignore-check.capreport.io/%s is not honoured: the configuration forbids ignores (checks.allowIgnores: false)", id)
			f.Remediation = "Fix the finding instead, or allow ignores in .capreport.yaml."
			fs = append(fs, f)
		}
		return fs
	}
	for i := range fs {
		if reason, ok := ignores[fs[i].Check]; ok && strings.TrimSpace(reason) != "" && fs[i].Check != check.IgnoreWithoutReason {
			fs[i].Ignored, fs[i].IgnoreReason = true, reason
		}
	}
	for _, id := range slices.Sorted(maps.Keys(ignores)) {
		if _, ok := check.Lookup(id); !ok {
			fs = append(fs, check.Raise(check.UnknownCheck, "ignore-check.capreport.io/%s names no check, so it ignores nothing", id))
		}
	}
	return fs
}

// filterChecks keeps the findings of the checks the config runs.
func filterChecks(fs []contract.Finding, checks config.Checks) []contract.Finding {
	out := fs[:0]
	for _, f := range fs {
		if checks.Enabled(f.Check) {
			out = append(out, f)
		}
	}
	return out
}

// verdictOf: fail on any error, warn on any warning, unpriced without a
// bill, else pass; ignored findings count for nothing.
func verdictOf(w contract.Workload) string {
	errs, warns := 0, 0
	for _, f := range w.Findings {
		if f.Ignored {
			continue
		}
		switch f.Severity {
		case check.SeverityError:
			errs++
		case check.SeverityWarning:
			warns++
		}
	}
	switch {
	case errs > 0:
		return contract.VerdictFail
	case w.Size == nil && w.Time == nil:
		return contract.VerdictUnpriced
	case warns > 0:
		return contract.VerdictWarn
	}
	return contract.VerdictPass
}

func fmtK(k float64) string { return strconv.FormatFloat(k, 'g', -1, 64) + "x" }

// FormatDuration prints seconds in the syntax of an annotation or a flag:
// 45s, 1m30s, 5m, 1h2m (Go's String would print 5m0s and 1h2m0s). It is for
// assumption values, which a reader copies back into a manifest; figures in
// messages use units.Duration like every other format.
func FormatDuration(s float64) string {
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return "∞"
	}
	if s < 60 {
		return strconv.FormatFloat(math.Round(s*10)/10, 'f', -1, 64) + "s"
	}
	total := int64(math.Round(s))
	h, m, sec := total/3600, total/60%60, total%60
	var b strings.Builder
	if h > 0 {
		fmt.Fprintf(&b, "%dh", h)
	}
	if m > 0 {
		fmt.Fprintf(&b, "%dm", m)
	}
	if sec > 0 {
		fmt.Fprintf(&b, "%ds", sec)
	}
	return b.String()
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
