package upstreamdiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/capreport/capreport/analyze/hpa"
)

// gen draws case inputs. Times are whole seconds around now, many of them
// exactly on a boundary the code compares against (start + init period,
// last transition + window, now − window), since off-by-one-tick behaviour
// at those boundaries is where ports go wrong.
type gen struct {
	r   *rand.Rand
	now time.Time
	// huge is set while one pod in fifty is drawn: half its requests are
	// then just over half of MaxInt64 (request).
	huge bool
}

func (g gen) chance(p float64) bool { return g.r.Float64() < p }

func (g gen) intn(n int) int { return g.r.IntN(n) }

// between returns an int in [lo, hi].
func (g gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// nudge moves t by −1 s, 0 or +1 s, so that both sides of a boundary and
// the boundary itself come up.
func (g gen) nudge(t time.Time) time.Time {
	return t.Add(time.Duration(g.between(-1, 1)) * time.Second)
}

func (g gen) secondsAgo(maxSeconds int) time.Time {
	return g.now.Add(-time.Duration(g.between(0, maxSeconds)) * time.Second)
}

// calculator draws the controller tuning and tolerances.
func (g gen) calculator() hpa.Calculator {
	return hpa.Calculator{
		Tolerances:                    g.tolerances(),
		CPUInitializationPeriod:       []time.Duration{2 * time.Minute, 5 * time.Minute, 0}[g.intn(3)],
		DelayOfInitialReadinessStatus: []time.Duration{10 * time.Second, 30 * time.Second, 0}[g.intn(3)],
	}
}

func (g gen) tolerances() hpa.Tolerances {
	pick := func() float64 {
		return []float64{0.1, 0.1, 0, 0.05, 0.5, 1, float64(g.intn(300)) / 1000}[g.intn(7)]
	}
	if g.chance(0.5) {
		return hpa.Tolerances{ScaleDown: 0.1, ScaleUp: 0.1}
	}
	return hpa.Tolerances{ScaleDown: pick(), ScaleUp: pick()}
}

// value draws a usage or request in milli-units: mostly ordinary, some zero,
// a few large enough that upstream's int64 sums overflow.
func (g gen) value() int64 {
	switch x := g.intn(20); {
	case x == 0:
		return 0
	case x == 1:
		return int64(g.between(1, 100)) * 1e15
	case x < 5:
		return int64(g.between(1, 20)) * 100
	}
	return int64(g.between(1, 3000))
}

// pods draws 0 to 8 pod entries (rarely none), some of them cohorts.
func (g gen) pods(c hpa.Calculator) []hpa.Pod {
	n := g.between(1, 8)
	if g.chance(0.03) {
		n = 0
	}
	pods := make([]hpa.Pod, n)
	for i := range pods {
		pods[i] = g.pod(fmt.Sprintf("pod-%d", i), c)
	}
	return pods
}

func (g gen) pod(name string, c hpa.Calculator) hpa.Pod {
	p := hpa.Pod{Name: name, Phase: hpa.PodRunning}
	g.huge = g.chance(0.02)
	if g.chance(0.25) {
		p.Count = int32(g.between(1, 4))
	}
	if g.chance(0.3) {
		p.Phase = []hpa.PodPhase{hpa.PodPending, hpa.PodFailed, hpa.PodSucceeded, hpa.PodUnknown}[g.intn(4)]
	}
	p.Deleting = g.chance(0.1)
	if !g.chance(0.1) {
		p.StartTime = g.startTime(c)
	}
	if !g.chance(0.1) {
		p.Ready = g.ready(p.StartTime, c)
	}
	p.Containers, p.InitContainers = g.containers()
	if g.chance(0.25) {
		p.PodRequests = g.requests([]string{"cpu", "memory", "hugepages-2Mi", "ephemeral-storage"}, 0.5)
	}
	// spec.overhead counts on the pod-level path only (PodRequests).
	if g.chance(0.15) {
		p.Overhead = g.requests([]string{"cpu", "memory", "hugepages-2Mi", "ephemeral-storage"}, 0.5)
	}
	return p
}

// startTime lands on, or a second beside, the end of the CPU
// initialization period, or anywhere in the last 20 minutes.
func (g gen) startTime(c hpa.Calculator) *time.Time {
	t := g.secondsAgo(1200)
	if g.chance(0.4) {
		t = g.nudge(g.now.Add(-c.CPUInitializationPeriod))
	}
	return &t
}

// ready puts the last transition on or beside start + readiness delay, or
// anywhere between start and now.
func (g gen) ready(start *time.Time, c hpa.Calculator) *hpa.ReadyCondition {
	cond := &hpa.ReadyCondition{Status: g.chance(0.75), LastTransitionTime: g.secondsAgo(1200)}
	if start != nil {
		if g.chance(0.5) {
			cond.LastTransitionTime = g.nudge(start.Add(c.DelayOfInitialReadinessStatus))
		} else if d := g.now.Sub(*start); d > 0 && g.chance(0.5) {
			cond.LastTransitionTime = start.Add(time.Duration(g.r.Int64N(int64(d/time.Second)+1)) * time.Second)
		}
	}
	return cond
}

// containerNames are the names containers and init containers take
// (unique within a pod, as the API requires); the ContainerResource group
// names one of them, or one no pod has, as its metric's container.
var containerNames = []string{"app", "side", "logger", "init", "mesh", "setup"}

// containers draws up to three containers and, in two pods of five, up to
// three init containers, each a sidecar (restartPolicy Always) or a
// regular init container at even odds, in random order: on the pod-level
// path a regular init container runs beside the sidecars listed before it
// only (AggregateContainerRequests), so the order matters.
func (g gen) containers() (containers, inits []hpa.Container) {
	names := slices.Clone(containerNames)
	g.r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	n := g.between(0, 3)
	if n == 0 && g.chance(0.7) {
		n = 1
	}
	m := 0
	if g.chance(0.4) {
		m = g.between(1, 3)
	}
	for _, name := range names[:n] {
		containers = append(containers, g.container(name, false))
	}
	for _, name := range names[n : n+m] {
		inits = append(inits, g.container(name, g.chance(0.5)))
	}
	return containers, inits
}

func (g gen) container(name string, sidecar bool) hpa.Container {
	c := hpa.Container{Name: name, RestartableInit: sidecar}
	if !g.chance(0.05) {
		c.Requests = g.requests([]string{"cpu", "memory", "hugepages-2Mi"}, 0.85)
	}
	return c
}

func (g gen) requests(names []string, p float64) map[string]int64 {
	m := map[string]int64{}
	for _, n := range names {
		if g.chance(p) {
			m[n] = g.request()
		}
	}
	return m
}

// request is a value or, in a huge pod, at even odds just over half of
// MaxInt64, so that two of the pod's requests overflow int64: upstream's
// per-container sum wraps there, while PodRequests' Quantity arithmetic
// stays exact (inf.Dec) until MilliValue and compares the init
// containers' needs exactly.
func (g gen) request() int64 {
	if g.huge && g.chance(0.5) {
		return math.MaxInt64/2 + 1 + int64(g.intn(1000))
	}
	return g.value()
}

// metrics draws a sample for most pods (timestamps on or beside the end of
// one window after the last readiness transition, or recent) and sometimes
// samples for pods that are not listed.
func (g gen) metrics(pods []hpa.Pod) hpa.PodMetrics {
	m := hpa.PodMetrics{}
	if g.chance(0.03) {
		return m
	}
	for _, p := range pods {
		if g.chance(0.2) {
			continue
		}
		s := hpa.PodMetric{Value: g.value(), Window: []time.Duration{30 * time.Second, time.Minute, 15 * time.Second}[g.intn(3)]}
		s.Timestamp = g.secondsAgo(120)
		if p.Ready != nil && g.chance(0.5) {
			s.Timestamp = g.nudge(p.Ready.LastTransitionTime.Add(s.Window))
		}
		m[p.Name] = s
	}
	for i := range g.between(0, 2) {
		if g.chance(0.3) {
			m[fmt.Sprintf("extra-%d", i)] = hpa.PodMetric{Value: g.value(), Timestamp: g.now, Window: time.Minute}
		}
	}
	return m
}

// resource draws the metric's resource name; cpu is the one with the
// readiness rules.
func (g gen) resource() string {
	return []string{"cpu", "cpu", "cpu", "memory", "memory", "hugepages-2Mi", "ephemeral-storage"}[g.intn(7)]
}

// replicas draws a replica count, 0 included.
func (g gen) replicas() int32 { return int32(g.between(0, 20)) }

// series draws external metric series: none, ordinary values, negative
// ones, or values near MaxInt64 whose sum overflows.
func (g gen) series() []int64 {
	out := make([]int64, g.between(0, 4))
	for i := range out {
		switch g.intn(10) {
		case 0:
			out[i] = math.MaxInt64 - int64(g.intn(1000))
		case 1:
			out[i] = -g.value()
		default:
			out[i] = g.value()
		}
	}
	return out
}
