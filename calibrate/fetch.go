package calibrate

import (
	"context"
	"errors"
	"fmt"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// nsData is everything fetched for one namespace.
type nsData struct {
	q         queries
	g         grid
	owners    *owners
	dead      map[string]float64
	requests  perPod
	usage     perPod
	cpuReq    perPod
	consumer  perPod
	keda      perPod
	reqQuery  string
	consQuery string
	// lost are the answers over a bound (LimitError), by query: what
	// needs one is a finding, not measured.
	lost map[string]*LimitError
}

// fetchNamespace issues the namespace's shared queries: owners, dead
// times, and the rates that some workload of the namespace needs.
func fetchNamespace(ctx context.Context, src Source, ns string, ws []Workload, o Options) (*nsData, error) {
	start := o.Now.Add(-o.Since).Truncate(o.Step).Add(o.Step)
	d := &nsData{
		q:      queries{ns: ns, since: o.Since, window: o.Step, t0: o.Now.Add(-o.Since)},
		g:      grid{start: start, step: o.Step, n: int(o.Now.Sub(start)/o.Step) + 1},
		owners: newOwners(),
		lost:   map[string]*LimitError{},
	}
	f := fetcher{ctx: ctx, src: src, now: o.Now, g: d.g, lost: d.lost}
	var size, time bool
	for _, w := range ws {
		size = size || w.Row == RowSize && w.RequestQuery == ""
		time = time || w.Row == RowTime
	}
	f.instant(d.q.podOwners(), func(m model.Metric, v float64) {
		d.owners.pod[string(m["pod"])] = ownerRef{string(m["owner_kind"]), string(m["owner_name"])}
	})
	f.instant(d.q.replicaSetOwners(), func(m model.Metric, v float64) {
		d.owners.replicaSet[string(m["replicaset"])] = ownerRef{string(m["owner_kind"]), string(m["owner_name"])}
	})
	if len(d.lost) > 0 {
		return d, f.err // no workload's pods are known: nothing else is asked
	}
	d.dead = map[string]float64{}
	f.instant(d.q.deadTimes(), func(m model.Metric, v float64) { d.dead[string(m["pod"])] = v })
	if anyRow(ws, RowSize) {
		d.usage = f.rangeBy(d.q.cpuUsage(), "pod")
		d.cpuReq = f.rangeBy(d.q.cpuRequests(), "pod")
	}
	if size {
		d.reqQuery = expand(DefaultRequestRate, ns, "", o.Step)
		d.requests = f.rangeBy(d.reqQuery, "pod")
	}
	if time {
		d.consQuery = expand(DefaultConsumerRate, ns, "", o.Step)
		d.consumer = f.rangeBy(d.consQuery, "pod")
		d.keda = f.rangeBy(d.q.kedaValues(), "scaledObject")
	}
	return d, f.err
}

func anyRow(ws []Workload, r Row) bool {
	for _, w := range ws {
		if w.Row == r {
			return true
		}
	}
	return false
}

// fetcher runs queries until the first error, which it keeps; an answer
// over a bound only loses its query (lost), and the rest are asked.
type fetcher struct {
	ctx  context.Context
	src  Source
	now  time.Time
	g    grid
	err  error
	lost map[string]*LimitError
}

// fail keeps err: the run's end, or, for an answer over a bound, its
// query's loss. What each saw of the answer before is not to be used.
func (f *fetcher) fail(q string, err error) {
	var le *LimitError
	if errors.As(err, &le) {
		le.Query = q
		f.lost[q] = le
		return
	}
	f.err = queryError(q, err)
}

func (f *fetcher) instant(q string, each func(model.Metric, float64)) {
	if f.err != nil {
		return
	}
	err := f.src.Query(f.ctx, q, f.now, func(m model.Metric, pts []model.SamplePair) error {
		if len(pts) > 0 {
			each(m, float64(pts[0].Value))
		}
		return nil
	})
	if err != nil {
		f.fail(q, err)
	}
}

// rangeBy runs a range query over the grid and keys its series by label
// (series without it are dropped; two with one key are summed).
func (f *fetcher) rangeBy(q, label string) perPod {
	if f.err != nil {
		return nil
	}
	r := v1.Range{Start: f.g.start, End: f.g.start.Add(time.Duration(f.g.n-1) * f.g.step), Step: f.g.step}
	b := newSlotsBuilder(f.g)
	err := f.src.QueryRange(f.ctx, q, r, func(m model.Metric, pts []model.SamplePair) error {
		if key, ok := m[model.LabelName(label)]; ok {
			b.add(string(key), pts)
		}
		return nil
	})
	if err != nil {
		f.fail(q, err)
		return nil
	}
	return b.done()
}

// lostAny is the first of qs whose answer was over a bound, nil if none.
func (d *nsData) lostAny(qs ...string) error {
	for _, q := range qs {
		if le := d.lost[q]; le != nil {
			return le
		}
	}
	return nil
}

// queryError names the query; the client's error says what went wrong
// (status, body, timeout).
func queryError(q string, err error) error {
	return fmt.Errorf("prometheus query %q: %w", q, err)
}
