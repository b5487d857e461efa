package main

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// A synthetic cluster history in OpenMetrics, as kube-state-metrics,
// cAdvisor, a Kafka client and KEDA would have exported it, with known
// dead times and rates.

const genScrape = 30 * time.Second

type genPod struct {
	ns, name, rs, ownerKind, ownerName string
	created, ready, end                time.Time
	rate                               func(t time.Time) float64 // served or consumed per second while ready
	counter                            string                    // the rate's counter ("" for none)
	cpuPerUnit                         float64                   // CPU cores per unit of rate
	cpuRequest                         float64
}

// genSeries collects samples per series; write emits them family by
// family (OpenMetrics wants a family's samples together), each series in
// time order.
type genSeries map[string]map[string][]string // metric → labels → lines

func (g genSeries) add(metric, labels string, t time.Time, v float64) {
	if g[metric] == nil {
		g[metric] = map[string][]string{}
	}
	g[metric][labels] = append(g[metric][labels], fmt.Sprintf("%s{%s} %s %d", metric, labels, fmtG(v), t.Unix()))
}

func fmtG(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%.6f", v), ".000000") }

func (g genSeries) write() []byte {
	var b strings.Builder
	metrics := make([]string, 0, len(g))
	for m := range g {
		metrics = append(metrics, m)
	}
	sort.Strings(metrics)
	for _, m := range metrics {
		ls := make([]string, 0, len(g[m]))
		for l := range g[m] {
			ls = append(ls, l)
		}
		sort.Strings(ls)
		for _, l := range ls {
			for _, line := range g[m][l] {
				b.WriteString(line)
				b.WriteByte('\n')
			}
		}
	}
	b.WriteString("# EOF\n")
	return []byte(b.String())
}

// pod emits one pod's series from its creation to its end.
func (g genSeries) pod(p genPod) {
	id := fmt.Sprintf(`namespace=%q,pod=%q`, p.ns, p.name)
	kind, name := p.ownerKind, p.ownerName
	if p.rs != "" {
		kind, name = "ReplicaSet", p.rs
	}
	served, cpu := 0.0, 0.0
	for t := p.created; !t.After(p.end); t = t.Add(genScrape) {
		g.add("kube_pod_created", id, t, float64(p.created.Unix()))
		g.add("kube_pod_owner", id+fmt.Sprintf(`,owner_kind=%q,owner_name=%q`, kind, name), t, 1)
		g.add("kube_pod_container_resource_requests", id+`,container="app",resource="cpu",unit="core"`, t, p.cpuRequest)
		if !t.Before(p.ready) {
			g.add("kube_pod_status_ready_time", id, t, float64(p.ready.Unix()))
		}
		g.add("container_cpu_usage_seconds_total", id+`,container="app"`, t, cpu)
		if p.counter != "" {
			g.add(p.counter, id, t, served)
		}
		r := 0.0
		if !t.Before(p.ready) && p.rate != nil {
			r = p.rate(t)
		}
		served += r * genScrape.Seconds()
		cpu += r * p.cpuPerUnit * genScrape.Seconds() // plus nothing at idle: CPU follows the work
	}
}

// genWorkload describes generations of pods replacing each other.
type genWorkload struct {
	ns, kind, name, rs string
	slots              int           // pods serving at once
	every              time.Duration // a new generation this often
	generations        int
	deadTime           func(i int) time.Duration
	total              func(t time.Time) float64 // the workload's rate, shared by its slots
	counter            string
	cpuPerUnit         float64
}

// emit writes the workload's pods and returns their dead times.
func (w genWorkload) emit(g genSeries, start, end time.Time) []float64 {
	var dead []float64
	n := 0
	type slotPod struct{ created, ready time.Time }
	pods := make([][]slotPod, w.slots)
	for gen := 0; gen < w.generations; gen++ {
		for s := 0; s < w.slots; s++ {
			c := start.Add(10*time.Minute + time.Duration(gen)*w.every + time.Duration(s)*5*time.Minute)
			d := w.deadTime(n)
			n++
			pods[s] = append(pods[s], slotPod{c, c.Add(d)})
			dead = append(dead, d.Seconds())
		}
	}
	for s, ps := range pods {
		for i, p := range ps {
			stop := end
			if i+1 < len(ps) {
				stop = ps[i+1].ready
			}
			pg := genPod{ns: w.ns, name: fmt.Sprintf("%s-%d-%d", w.name, i, s), rs: w.rs, ownerKind: w.kind, ownerName: w.name,
				created: p.created, ready: p.ready, end: stop, counter: w.counter, cpuPerUnit: w.cpuPerUnit, cpuRequest: 0.5}
			if w.total != nil {
				slots := float64(w.slots)
				pg.rate = func(t time.Time) float64 { return w.total(t) / slots }
			}
			g.pod(pg)
		}
	}
	if w.rs != "" {
		for t := start; !t.After(end); t = t.Add(genScrape) {
			g.add("kube_replicaset_owner", fmt.Sprintf(`namespace=%q,replicaset=%q,owner_kind=%q,owner_name=%q`, w.ns, w.rs, w.kind, w.name), t, 1)
		}
	}
	return dead
}

// quantileBounds are the order statistics either side of the q-quantile's
// rank: any interpolating definition lies between them.
func quantileBounds(xs []float64, q float64) (lo, hi float64) {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	h := q * float64(len(s)-1)
	return s[int(math.Floor(h))], s[int(math.Ceil(h))]
}
