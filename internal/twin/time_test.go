package twin

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/informers"

	"github.com/capreport/capreport/analyze/hpa"
	"github.com/capreport/capreport/analyze/sim"
)

// A timeCase is one run of "The Delay a Window Demands"'s cluster kit:
// demand steps from 50 to 200 messages/s, each pod consumes 10/s after a
// 90 s dead time, a ceiling of 100 pods, scaled through KEDA on its
// backlog (an External AverageValue metric of T messages per pod, T/c
// the standing delay) under a downscale stabilization window.
type timeCase struct {
	name      string
	standing  float64 // D = T/c, seconds
	window    int64   // W, seconds (the controller's flag: KEDA's HPA has no behavior)
	statsFrom int64   // the band is taken over seconds statsFrom…horizon
	horizon   int64
	// opening: the essay states the orders of the first 90 s, and they are
	// judged (F3's "count 5 → 10 → 20 at the first two syncs; 80 ordered
	// by 60 s; ceiling 100 by 90 s"). F1's and F2's are not: at T = 600
	// their backlog crosses a pod's worth at the very syncs the model
	// orders on (5,400 messages at 15 s is 9 pods, one second later 10),
	// so an opening read a model second late, as the compressed twin's
	// are (the controller's own time per sync, tenfold), orders one more.
	opening bool
}

func (c timeCase) options() sim.TimeOptions {
	cfg := hpa.DefaultConfig()
	cfg.DownscaleStabilizationWindow = time.Duration(c.window) * time.Second
	return sim.TimeOptions{
		Controller:   sim.Controller{Config: cfg, MaxReplicas: 100},
		PodRate:      10,
		Threshold:    c.standing * 10,
		DeadTime:     90,
		DemandBefore: 50,
		DemandAfter:  200,
		Duration:     c.horizon,
		StatsWindow:  c.horizon - c.statsFrom,
	}
}

// timeCases are part 2's criteria. The essays read the band over the last
// hour of a twenty-hour run; the twin and the prediction read it over the
// same shorter span (the limit cycle is reached by then: see
// docs/fidelity.md).
var timeCases = []timeCase{
	{name: "f1-d60-w300", standing: 60, window: 300, statsFrom: 1200, horizon: 2400},
	{name: "f1-d150-w300", standing: 150, window: 300, statsFrom: 1200, horizon: 2400},
	{name: "f2-d60-w60", standing: 60, window: 60, statsFrom: 1200, horizon: 2400},
	{name: "f3-d1-w300", standing: 1, window: 300, statsFrom: 0, horizon: 600, opening: true},
	{name: "f3-d1-w0", standing: 1, window: 0, statsFrom: 0, horizon: 600, opening: true},
}

// TestTimeCriteria runs part 2's criteria on the twin: one control plane
// per window (the controller's flag), its cases side by side, every
// duration divided by TWIN_TIME_COMPRESSION (default 10).
func TestTimeCriteria(t *testing.T) {
	compression := compressionFromEnv(t, "TWIN_TIME_COMPRESSION", 10)
	byWindow := map[int64][]timeCase{}
	var windows []int64
	for _, c := range selected(t, timeCases, func(c timeCase) string { return c.name }) {
		if byWindow[c.window] == nil {
			windows = append(windows, c.window)
		}
		byWindow[c.window] = append(byWindow[c.window], c)
	}
	if len(windows) == 0 {
		t.Log("TWIN_CASES selects no case of part 2")
		return
	}
	for _, w := range windows {
		t.Run(fmt.Sprintf("window-%ds", w), func(t *testing.T) {
			runTimePlane(t, compression, w, byWindow[w])
		})
	}
}

func runTimePlane(t *testing.T, compression float64, window int64, cases []timeCase) {
	c0 := &Clock{Compression: compression}
	rs := newRuns()
	period := c0.Duration(15)
	plane := StartPlane(t, PlaneOptions{
		SyncPeriod: period, DownscaleWindow: c0.Duration(float64(window)),
		CPUInitialization: c0.Duration(300), InitialReadiness: c0.Duration(30),
		Metrics: rs, ObserveMetricsCalls: rs.observe,
		KEDA: true, Backlog: rs.backlogMilli,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	factory := informers.NewSharedInformerFactory(plane.Client, 0)
	podLister := factory.Core().V1().Pods().Lister()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	var done []*timeRun
	var wg sync.WaitGroup
	for _, c := range cases {
		o := c.options()
		r := &timeRun{run: &run{ns: c.name, hpa: kedaHPA, pods: podLister, clock: &Clock{Compression: compression},
			pods0: int32(o.DemandBefore / o.PodRate), horizon: c.horizon}, c: c}
		wo := WorkloadOptions{Kind: Time, PodRate: o.PodRate, DemandBefore: o.DemandBefore, DemandAfter: o.DemandAfter,
			Backlog0: o.Threshold * o.DemandBefore / o.PodRate}
		r.workload = NewWorkload(r.clock, wo, int(r.pods0), r.ready)
		rs.add(r.run)
		done = append(done, r)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := runTime(ctx, plane, r, period); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		}()
	}
	wg.Wait()
	for _, r := range done {
		checkTime(t, r)
	}
}

// timeRun is one Time case on the twin.
type timeRun struct {
	*run
	c timeCase
}

// runTime creates the case's Deployment and a ScaledObject with one
// backlog trigger (KEDA's metrics-api scaler, an AverageValue target of T
// messages per pod), no minReplicaCount (KEDA's HPA then has minReplicas
// 1) and no advanced behavior, for KEDA to build its HPA from; then steps
// the demand at a sync and watches the scale. The polling interval is an
// hour: with a floor of one pod, KEDA's polling loop decides nothing (it
// activates from zero and scales to zero), and every backlog request in
// the run is then the HPA controller's, read through KEDA's adapter, which
// is how the run finds the controller's syncs.
func runTime(ctx context.Context, p *Plane, r *timeRun, period time.Duration) error {
	o := r.c.options()
	if err := createWorkload(ctx, p, r.run, 100, 100, o.DeadTime); err != nil {
		return err
	}
	trigger := map[string]any{"type": "metrics-api", "metricType": "AverageValue", "metadata": map[string]any{
		"url": p.BacklogURL + r.ns, "valueLocation": "backlog",
		"targetValue": strconv.FormatFloat(o.Threshold, 'f', -1, 64)}}
	spec := map[string]any{"pollingInterval": int64(3600), "maxReplicaCount": int64(o.Controller.MaxReplicas),
		"triggers": []any{trigger}}
	if err := createScaledObject(ctx, p, r.run, spec); err != nil {
		return err
	}
	if err := stepAtSync(ctx, r.run, period); err != nil {
		return err
	}
	return watchScale(ctx, p, r.run)
}
