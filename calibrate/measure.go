package calibrate

import (
	"context"
	"fmt"
	"sort"

	"github.com/capreport/capreport/config"
)

// Run measures every workload, namespace by namespace; progress (may be
// nil) is told after each namespace how many workloads are done. An error
// is a query that failed (unreachable, refused, timed out): the run stops.
// An answer over a bound (LimitError) is not: what needed it is reported
// as findings, and the rest is measured.
func Run(ctx context.Context, src Source, ws []Workload, o Options, progress func(done int)) ([]Result, error) {
	o = o.Defaults()
	byNS := map[string][]Workload{}
	for _, w := range ws {
		byNS[w.Namespace] = append(byNS[w.Namespace], w)
	}
	names := make([]string, 0, len(byNS))
	for ns := range byNS {
		names = append(names, ns)
	}
	sort.Strings(names)
	var out []Result
	for _, ns := range names {
		rs, err := measureNamespace(ctx, src, ns, byNS[ns], o)
		if err != nil {
			return out, err
		}
		out = append(out, rs...)
		if progress != nil {
			progress(len(out))
		}
	}
	return out, nil
}

func measureNamespace(ctx context.Context, src Source, ns string, ws []Workload, o Options) ([]Result, error) {
	d, err := fetchNamespace(ctx, src, ns, ws, o)
	if err != nil {
		return nil, err
	}
	pods := d.owners.byWorkload()
	out := make([]Result, 0, len(ws))
	for _, w := range ws {
		r, err := d.measure(ctx, src, w, pods[workloadKey(w.Kind, w.Name)], o)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// measure computes one workload's values from the namespace's data,
// running its own rate query when the config gives one. What needs an
// answer that was over a bound is a finding that names it.
func (d *nsData) measure(ctx context.Context, src Source, w Workload, pods map[string]bool, o Options) (Result, error) {
	r := Result{Workload: w}
	find := func(k config.Key, format string, args ...any) {
		r.Unwritten = append(r.Unwritten, Unwritten{Workload: w.Ref(), Key: k, Message: fmt.Sprintf(format, args...)})
	}
	if err := d.lostAny(d.q.podOwners(), d.q.replicaSetOwners()); err != nil {
		find(config.KeyDeadTime, "%v: the workload's pods are unknown, nothing measured", err)
		return r, nil
	}
	if len(pods) == 0 {
		find(config.KeyDeadTime, "no pods found through kube_pod_owner over %s; is kube-state-metrics scraped, and does the namespace match?", windowName(o.Since))
		return r, nil
	}
	if !w.Skip[config.KeyDeadTime] {
		if err := d.lostAny(d.q.deadTimes()); err != nil {
			find(config.KeyDeadTime, "%v: not measured", err)
		} else {
			d.measureDeadTime(&r, pods, o, find)
		}
	}
	rates, query, err := d.rates(ctx, src, w, o)
	if err != nil || w.Row == RowNone {
		return r, err
	}
	if err := d.lostAny(query); err != nil {
		if !w.Skip[config.KeyPodRate] {
			find(config.KeyPodRate, "%v: not measured", err)
		}
		find(config.KeyDemand, "%v: not measured", err)
		return r, nil
	}
	samples, totals := d.rateSamples(&r, pods, rates, o)
	if !w.Skip[config.KeyPodRate] {
		d.podRate(&r, samples, query, o, find)
	}
	measureDemand(&r, totals, query, o, find)
	return r, nil
}

// podRate writes the pod rate, unless an answer it rests on besides the
// rates was over a bound.
func (d *nsData) podRate(r *Result, samples []float64, query string, o Options, find findFunc) {
	rec, besides := query, []string{d.q.kedaValues()}
	if r.Workload.Row == RowSize {
		rec, besides = podRateRecord(query, d.q.cpuUsage(), d.q.cpuRequests()), []string{d.q.cpuUsage(), d.q.cpuRequests()}
	}
	if err := d.lostAny(besides...); err != nil {
		find(config.KeyPodRate, "%v: not measured", err)
		return
	}
	measurePodRate(r, samples, rec, o, find)
}
