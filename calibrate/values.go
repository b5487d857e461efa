package calibrate

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/capreport/capreport/config"
)

type findFunc func(k config.Key, format string, args ...any)

func (o Options) record(query string, q float64, n int) config.Measurement {
	return config.Measurement{Query: query, Window: windowName(o.Since), Quantile: q, Samples: n, At: o.Now}
}

// measureDeadTime takes the quantile of the pods' creation-to-Ready times.
func (d *nsData) measureDeadTime(r *Result, pods map[string]bool, o Options, find findFunc) {
	var xs []float64
	for pod := range pods {
		if v, ok := d.dead[pod]; ok && finite(v) && v >= 0 {
			xs = append(xs, v)
		}
	}
	k := config.KeyDeadTime
	if len(xs) < o.MinPods {
		find(k, "%d pod(s) created and Ready in %s, fewer than %d: not written", len(xs), windowName(o.Since), o.MinPods)
		return
	}
	if tooSpread(k, xs, "pods", o, find) {
		return
	}
	v := Quantile(xs, o.Quantile)
	secs := math.Max(1, math.Round(v))
	if err := inRange(k, secs); err != nil {
		find(k, "%v: not written", err)
		return
	}
	r.Values = append(r.Values, Value{Key: k, Text: fmt.Sprintf("%ds", int64(secs)), Number: v,
		Record: o.record(d.q.deadTimes(), o.Quantile, len(xs))})
}

// rates returns the workload's per-pod rate series and the query behind
// them: its own query when the config gives one, else the namespace's.
func (d *nsData) rates(ctx context.Context, src Source, w Workload, o Options) (perPod, string, error) {
	own, shared, sharedQ := w.RequestQuery, d.requests, d.reqQuery
	if w.Row == RowTime {
		own, shared, sharedQ = w.ConsumerQuery, d.consumer, d.consQuery
	}
	if w.Row == RowNone {
		return nil, "", nil
	}
	if own == "" {
		return shared, sharedQ, nil
	}
	q := expand(own, w.Namespace, w.Name, o.Step)
	f := fetcher{ctx: ctx, src: src, now: o.Now, g: d.g, lost: d.lost}
	got := f.rangeBy(q, "pod")
	return got, q, f.err
}

// rateSamples turns per-pod rates into pod-rate samples and per-slot
// totals. Size row: served rate over CPU use per request, where the pod is
// busy enough to say. Time row: consumed rate per pod, only while KEDA saw
// a backlog when it reports one (an idle consumer shows demand, not
// capacity). Pods are taken in name order, so that the sums are the same
// from run to run; only the slots a pod has samples at cost anything.
func (d *nsData) rateSamples(r *Result, pods map[string]bool, rates perPod, o Options) (samples, totals []float64) {
	w := r.Workload
	busy, kedaSeen := d.keda[w.ScaledObject]
	_, kedaLost := d.lost[d.q.kedaValues()]
	if w.Row == RowTime && !kedaSeen && !kedaLost {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: keda_scaler_metrics_value has no series for ScaledObject %q: the consumer rate is taken over all samples and understates capacity if pods idled", w.Ref(), w.ScaledObject))
	}
	total, count := make([]float64, d.g.n), make([]int32, d.g.n)
	for _, pod := range sortedKeys(pods) {
		req, usage := cursor{s: d.cpuReq[pod]}, cursor{s: d.usage[pod]}
		for _, p := range rates[pod] {
			if !finite(p.v) || p.v < 0 {
				continue
			}
			total[p.i] += p.v
			count[p.i]++
			if w.Row == RowSize {
				if s, ok := sizeSample(req.at(int(p.i)), usage.at(int(p.i)), p.v, o); ok {
					samples = append(samples, s)
				}
			}
		}
	}
	backlog := cursor{s: busy}
	for i, n := range count {
		if n == 0 {
			continue
		}
		totals = append(totals, total[i])
		if w.Row == RowTime && (!kedaSeen || backlog.at(i) > 0) {
			samples = append(samples, total[i]/float64(n))
		}
	}
	if w.Row == RowTime && kedaSeen {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: consumer rate cross-checked with keda_scaler_metrics_value: %d of %d samples had a backlog", w.Ref(), len(samples), len(totals)))
	}
	return samples, totals
}

// sizeSample is a pod's rate v over its CPU use per request (usage over
// req), if it used at least MinUtilization of it.
func sizeSample(req, usage, v float64, o Options) (float64, bool) {
	if !(req > 0) {
		return 0, false
	}
	u := usage / req
	return v / u, finite(u) && u >= o.MinUtilization
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func measurePodRate(r *Result, xs []float64, query string, o Options, find findFunc) {
	k := config.KeyPodRate
	if len(xs) < o.MinSamples {
		find(k, "%d sample(s) over %s, fewer than %d (no rate series, or pods too idle to say): not written", len(xs), windowName(o.Since), o.MinSamples)
		return
	}
	if tooSpread(k, xs, "samples", o, find) {
		return
	}
	v := Quantile(xs, 0.5)
	text := roundSig(v, 3)
	if err := inRange(k, text); err != nil {
		find(k, "%v: not written", err)
		return
	}
	r.Values = append(r.Values, Value{Key: k, Text: fmtNumber(text), Number: v, Record: o.record(query, 0.5, len(xs))})
}

// measureDemand writes the median total rate as the demand and the peak
// over it as a design overload.
func measureDemand(r *Result, totals []float64, query string, o Options, find findFunc) {
	if len(totals) < o.MinSamples {
		find(config.KeyDemand, "%d sample(s) over %s, fewer than %d: not written", len(totals), windowName(o.Since), o.MinSamples)
		return
	}
	peak := 0.0
	for _, v := range totals {
		peak = math.Max(peak, v)
	}
	med := Quantile(totals, 0.5)
	if med <= 0 {
		find(config.KeyDemand, "the median rate over %s is 0: not written", windowName(o.Since))
		return
	}
	skip := r.Workload.Skip
	if d := roundSig(med, 3); skip[config.KeyDemand] {
		// an annotation states it
	} else if inRange(config.KeyDemand, d) == nil {
		r.Values = append(r.Values, Value{Key: config.KeyDemand, Text: fmtNumber(d), Number: med, Record: o.record(query, 0.5, len(totals))})
	} else {
		find(config.KeyDemand, "%v: not written", inRange(config.KeyDemand, d))
	}
	k := math.Round(peak/med*10) / 10
	if skip[config.KeyOverload] {
		return
	}
	if k <= 1 {
		find(config.KeyOverload, "the peak (%s) is within 5%% of the median: no overload to measure, not written", fmtNumber(roundSig(peak, 3)))
		return
	}
	if err := inRange(config.KeyOverload, k); err != nil {
		find(config.KeyOverload, "peak %s over median %s: %v: not written", fmtNumber(roundSig(peak, 3)), fmtNumber(roundSig(med, 3)), err)
		return
	}
	r.Values = append(r.Values, Value{Key: config.KeyOverload, Text: fmtNumber(k) + "x", Number: peak / med, Record: o.record(query, 1, len(totals))})
}

// tooSpread reports (as a finding) a set of measurements too spread to be
// one number: its interquartile range over the median exceeds MaxSpread.
func tooSpread(k config.Key, xs []float64, what string, o Options, find findFunc) bool {
	if sp := Spread(xs); sp > o.MaxSpread {
		find(k, "too spread to be one number (interquartile range %.0f%% of the median over %d %s): not written", 100*sp, len(xs), what)
		return true
	}
	return false
}
