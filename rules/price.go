package rules

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
)

// price builds one workload's ledger row: identity, assumptions, the bill its
// signal calls for, the checks and the verdict.
func price(a *analyze.Autoscaler, cfg *config.Config, opts Options) contract.Workload {
	w := contract.Workload{
		ID:          a.ID,
		Autoscaler:  contract.Ref{APIVersion: a.APIVersion, Kind: a.Kind, Name: a.Name, Namespace: a.Namespace},
		Target:      contract.Ref{APIVersion: a.Target.APIVersion, Kind: a.Target.Kind, Name: a.Target.Name, Namespace: a.Target.Namespace},
		TargetFound: a.Target.Found,
		Source: contract.Location{File: a.Origin.File, Line: a.Origin.Line, Source: a.Origin.Source,
			Via: a.Origin.Via, Chain: a.Origin.Chain, Partial: a.Origin.Partial},
		Signal:      string(a.Signal),
		MinReplicas: a.Floor(), // KEDA's idle floor; the simulation keeps the HPA's
		MaxReplicas: a.HPA.MaxReplicas,
		Metrics:     metricsOf(a),
		KEDA:        KEDAOf(a),
		Assumptions: withMeasured(assumptionsOf(a.Assumptions), a.Assumptions),
		// A copy: the ledger adds to and annotates its workload's findings.
		Findings: append([]contract.Finding{}, a.Findings...),
	}
	in := inputsOf(a)
	switch {
	case a.Unpriced != "":
		w.UnpricedReason = a.Unpriced
	case a.Signal == analyze.SignalSaturating:
		if shape, why := cpuMetric(a); why != "" {
			w.UnpricedReason = why
		} else {
			w.Assumptions["cpuLimit"] = cpuLimitAssumption(shape)
			w.Size, w.UnpricedReason = priceSize(a, shape, in, opts)
		}
	case a.Signal == analyze.SignalBacklog:
		w.Time, w.UnpricedReason = priceTime(a, in, opts)
	case a.Signal == analyze.SignalRate:
		w.UnpricedReason = "a rate signal has no integrator and no ceiling; the laws for it (\"Demand Is Not Debt\") are not specified yet"
	default:
		w.UnpricedReason = "the signal of this autoscaler's metrics is unknown; set capreport.io/signal if it is a backlog or a saturating utilization"
	}
	if p := nonFinite(w.Size); p != "" {
		w.Size, w.UnpricedReason = nil, "the Size model overflowed (size."+p+"): an input is too large for the others; lower the demand or overload, or raise the pod rate"
	}
	if p := nonFinite(w.Time); p != "" {
		w.Time, w.UnpricedReason = nil, "the Time model overflowed (time."+p+"): an input is too large for the others; lower the demand or step, or raise the pod rate"
	}
	w.Latency = latencyOf(w, in)
	w.Findings = append(w.Findings, checksFor(a, &w, in)...)
	restOnAssumptions(w.Findings, w.Assumptions, opts.FailOnDefaults || cfg.FailOnDefaults)
	w.Findings = applyIgnores(w.Findings, a.Ignores, cfg.Checks)
	w.Findings = filterChecks(w.Findings, cfg.Checks)
	for i := range w.Findings {
		if w.Findings[i].Location == nil {
			w.Findings[i].Location = &contract.Location{File: w.Source.File, Line: w.Source.Line, Source: w.Source.Source}
		}
	}
	w.Verdict = verdictOf(w)
	if w.Verdict == contract.VerdictWarn && restsOnDefaults(w.Findings) {
		w.VerdictReason = contract.ReasonRestsOnDefaults
	}
	return w
}

// metricsOf summarizes the effective HPA's metrics.
func metricsOf(a *analyze.Autoscaler) []contract.Metric {
	out := make([]contract.Metric, 0, len(a.Metrics))
	for _, m := range a.Metrics {
		mm := contract.Metric{Type: string(m.Type), Name: m.Name, Signal: string(m.Signal)}
		switch {
		case m.TargetType == autoscalingv2.UtilizationMetricType:
			mm.Target = fmt.Sprintf("%d%%", m.Utilization)
		case m.TargetKnown:
			mm.Target = fmt.Sprintf("%s %s", m.TargetType, strconv.FormatFloat(float64(m.TargetMilli)/1000, 'g', -1, 64))
		default:
			mm.Target = string(m.TargetType)
		}
		if m.Trigger != nil {
			mm.Trigger = m.Trigger.Type
		}
		out = append(out, mm)
	}
	return out
}

// assumptionsOf flattens the typed assumptions into the report's map.
func assumptionsOf(as analyze.Assumptions) map[string]contract.Assumption {
	m := map[string]contract.Assumption{}
	put := func(key, value, from string, where *contract.Location) {
		m[key] = contract.Assumption{Value: value, From: from, Where: where}
	}
	dur := func(key string, v analyze.Assumed[time.Duration]) {
		s := FormatDuration(v.Value.Seconds())
		if v.Value == 0 {
			s = "none"
		}
		put(key, s, v.From, whereOf(v.Where))
	}
	num := func(key string, v analyze.Assumed[float64]) {
		s := strconv.FormatFloat(v.Value, 'g', -1, 64)
		if v.Value == 0 {
			s = "derived"
		}
		put(key, s, v.From, whereOf(v.Where))
	}
	dur("deadTime", as.DeadTime)
	num("podRate", as.PodRate)
	dur("latencyTarget", as.LatencyTarget)
	ks := make([]string, len(as.Overload.Value))
	for i, k := range as.Overload.Value {
		ks[i] = strconv.FormatFloat(k, 'g', -1, 64) + "x"
	}
	put("overload", strings.Join(ks, ","), as.Overload.From, whereOf(as.Overload.Where))
	num("demand", as.Demand)
	put("step", strconv.FormatFloat(as.Step.Value, 'g', -1, 64)+"x", as.Step.From, whereOf(as.Step.Where))
	dur("metricWindow", as.MetricWindow)
	num("saturatedEfficiency", as.SaturatedEfficiency)
	put("signal", string(as.Signal.Value), as.Signal.From, whereOf(as.Signal.Where))
	dur("syncPeriod", as.SyncPeriod)
	put("tolerance", strconv.FormatFloat(as.Tolerance.Value, 'g', -1, 64), as.Tolerance.From, whereOf(as.Tolerance.Where))
	dur("downscaleStabilization", as.DownscaleStabilization)
	dur("cpuInitializationPeriod", as.CPUInitializationPeriod)
	dur("initialReadinessDelay", as.InitialReadinessDelay)
	return m
}

// latencyOf holds the bill's figure against the latency target: the peak
// wait at the largest design overload (Size), or the largest of the
// standing delay every message waits at rest, the latency floor below
// which the loop cannot rest at all (Time, Cor. 3), and for a ScaledObject
// that scales to zero the first message's wait after an idle period.
func latencyOf(w contract.Workload, in inputs) *contract.LatencyCheck {
	if in.latencyTarget <= 0 {
		return nil
	}
	l := &contract.LatencyCheck{TargetSeconds: float64(in.latencyTarget)}
	switch {
	case w.Size != nil && len(w.Size.Overloads) > 0:
		worst := w.Size.Overloads[0]
		for _, o := range w.Size.Overloads[1:] {
			if o.K > worst.K {
				worst = o
			}
		}
		l.ExpectedSeconds, l.Basis = worst.PeakWaitSeconds, "peak wait at "+fmtK(worst.K)
	case w.Time != nil:
		l.ExpectedSeconds, l.Basis = w.Time.StandingDelaySeconds, "standing delay"
		if w.Time.LatencyFloorSeconds > l.ExpectedSeconds {
			l.ExpectedSeconds, l.Basis = w.Time.LatencyFloorSeconds, "latency floor"
		}
		if z := w.Time.ScaleFromZero; z != nil && z.FirstMessageWaitSeconds > l.ExpectedSeconds {
			l.ExpectedSeconds, l.Basis = z.FirstMessageWaitSeconds, "first message after idle"
		}
	default:
		return nil
	}
	l.Met = l.ExpectedSeconds <= l.TargetSeconds
	return l
}
