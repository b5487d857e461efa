package calibrate

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// fleet answers calibrate's queries in-process as Prometheus would for a
// fleet of Deployments with podsPer pods each, every pod serving 40/s at
// 50 % of a 0.5-core request (pod rate 80/s). It is calibrate's own cost
// that the benchmark measures: decoding what the server returns and the
// arithmetic, not the server's evaluation.
type fleet struct {
	perNS, podsPer int
}

var nsRE = regexp.MustCompile(`namespace="([^"]+)"`)

func (f fleet) pods(ns string, each func(pod, rs, deploy string)) {
	for w := 0; w < f.perNS; w++ {
		d := fmt.Sprintf("%s-w%d", ns, w)
		for p := 0; p < f.podsPer; p++ {
			each(fmt.Sprintf("%s-abc-%d", d, p), d+"-abc", d)
		}
	}
}

func (f fleet) Query(_ context.Context, q string, ts time.Time, each SeriesFunc) error {
	for _, s := range f.vector(q, ts) {
		if err := each(s.Metric, []model.SamplePair{{Timestamp: s.Timestamp, Value: s.Value}}); err != nil {
			return err
		}
	}
	return nil
}

func (f fleet) QueryRange(_ context.Context, q string, r v1.Range, each SeriesFunc) error {
	for _, s := range f.matrix(q, r) {
		if err := each(s.Metric, s.Values); err != nil {
			return err
		}
	}
	return nil
}

// vector is the fleet's answer to an instant query.
func (f fleet) vector(q string, ts time.Time) model.Vector {
	ns := nsRE.FindStringSubmatch(q)[1]
	var vec model.Vector
	add := func(v float64, kv ...string) {
		m := model.Metric{"namespace": model.LabelValue(ns)}
		for i := 0; i+1 < len(kv); i += 2 {
			m[model.LabelName(kv[i])] = model.LabelValue(kv[i+1])
		}
		vec = append(vec, &model.Sample{Metric: m, Value: model.SampleValue(v), Timestamp: model.TimeFromUnixNano(ts.UnixNano())})
	}
	f.pods(ns, func(pod, rs, d string) {
		switch {
		case strings.Contains(q, "kube_pod_owner"):
			add(1, "pod", pod, "owner_kind", "ReplicaSet", "owner_name", rs)
		case strings.Contains(q, "kube_replicaset_owner"):
			add(1, "replicaset", rs, "owner_kind", "Deployment", "owner_name", d)
		case strings.Contains(q, "kube_pod_status_ready_time"):
			add(float64(30+len(pod)%20), "pod", pod)
		}
	})
	return vec
}

// matrix is the fleet's answer to a range query.
func (f fleet) matrix(q string, r v1.Range) model.Matrix {
	ns := nsRE.FindStringSubmatch(q)[1]
	v := 40.0
	switch {
	case strings.Contains(q, "container_cpu_usage_seconds_total"):
		v = 0.25
	case strings.Contains(q, "kube_pod_container_resource_requests"):
		v = 0.5
	}
	var mat model.Matrix
	f.pods(ns, func(pod, _, _ string) {
		s := &model.SampleStream{Metric: model.Metric{"namespace": model.LabelValue(ns), "pod": model.LabelValue(pod)}}
		for t := r.Start; !t.After(r.End); t = t.Add(r.Step) {
			s.Values = append(s.Values, model.SamplePair{Timestamp: model.TimeFromUnixNano(t.UnixNano()), Value: model.SampleValue(v)})
		}
		mat = append(mat, s)
	})
	return mat
}

// BenchmarkCalibrate500 calibrates 500 workloads (10 namespaces of 50,
// 6 pods each) over 7 days: at most QueriesPerNamespace queries per
// namespace, and seconds, not minutes.
func BenchmarkCalibrate500(b *testing.B) {
	f := fleet{perNS: 50, podsPer: 6}
	var ws []Workload
	for n := 0; n < 10; n++ {
		ns := fmt.Sprintf("ns%d", n)
		for w := 0; w < f.perNS; w++ {
			ws = append(ws, Workload{Namespace: ns, Kind: "Deployment", Name: fmt.Sprintf("%s-w%d", ns, w), Row: RowSize})
		}
	}
	o := Options{Now: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Since: 7 * 24 * time.Hour}
	for i := 0; i < b.N; i++ {
		src := &Counting{Source: f}
		start := time.Now()
		rs, err := Run(context.Background(), src, ws, o, nil)
		if err != nil {
			b.Fatal(err)
		}
		if el := time.Since(start); el > 20*time.Second {
			b.Fatalf("500 workloads took %s", el)
		}
		if q := src.Queries(); q > 10*QueriesPerNamespace {
			b.Fatalf("%d queries for 10 namespaces, bound %d", q, 10*QueriesPerNamespace)
		}
		b.ReportMetric(float64(src.Queries()), "queries")
		if len(rs) != 500 {
			b.Fatalf("%d results", len(rs))
		}
		for _, r := range rs {
			if len(r.Values) != 3 || r.Values[1].Text != "80" {
				b.Fatalf("%s: values %+v findings %v", r.Workload.Ref(), r.Values, r.Unwritten)
			}
		}
	}
}

// The benchmark's bound holds as a test too, once, so `go test` checks it.
func TestCalibrate500Bounded(t *testing.T) {
	res := testing.Benchmark(BenchmarkCalibrate500)
	if res.N == 0 {
		t.Fatal("the benchmark failed (see above)")
	}
	t.Logf("%s", res)
}
