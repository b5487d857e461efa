package twin

import (
	"context"
	"sync"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"

	"github.com/capreport/capreport/analyze/hpa"
	"github.com/capreport/capreport/analyze/sim"
)

// A sizeCase is one run of "One Bit per Dead Time"'s falsification kit:
// four pods at 250m, a 50 % target, a ceiling of 50, 100 requests/s per
// pod at its request, a 90 s dead time; the step and what changes.
type sizeCase struct {
	name    string
	k       float64
	target  int32
	limit   int64 // milli-cores; the request is 250m
	horizon int64 // model seconds observed after the step
	// status says the criterion is judged on the HPA's reported
	// utilization too (the dead band: "the status reporting 100 %").
	status bool
}

func (c sizeCase) options() sim.SizeOptions {
	return sim.SizeOptions{
		Controller:   sim.Controller{Config: hpa.DefaultConfig(), MaxReplicas: 50},
		Pods:         4,
		RequestMilli: 250,
		LimitMilli:   c.limit,
		Target:       c.target,
		PodRate:      100,
		DeadTime:     90,
		Overload:     c.k,
	}
}

// sizeRun is one Size case on the twin.
type sizeRun struct {
	*run
	c sizeCase
}

// sizeCases are part 1's criteria: F1 and F2 (the 3x and 5x steps), F3 (the
// limit at four times the request), F4 (the dead band at a 93 % target).
var sizeCases = []sizeCase{
	{name: "f1-3x", k: 3, target: 50, limit: 250, horizon: 285},
	{name: "f1-5x", k: 5, target: 50, limit: 250, horizon: 285},
	{name: "f3-5x-limit-1000m", k: 5, target: 50, limit: 1000, horizon: 135},
	{name: "f4-3x-target-93", k: 3, target: 93, limit: 250, horizon: 285, status: true},
}

// TestSizeCriteria runs part 1's falsification criteria on the twin, the
// cases side by side on one control plane with the controller's default
// settings (a 15 s sync, a 300 s CPU initialization period, a 30 s initial
// readiness delay), every duration divided by TWIN_COMPRESSION (default 1:
// real time).
func TestSizeCriteria(t *testing.T) {
	cases := selected(t, sizeCases, func(c sizeCase) string { return c.name })
	if len(cases) == 0 {
		t.Log("TWIN_CASES selects no case of part 1")
		return
	}
	compression := compressionFromEnv(t, "TWIN_SIZE_COMPRESSION", 1)
	clockAt := func() *Clock { return &Clock{Compression: compression} }
	c0 := clockAt()
	rs := newRuns()
	period := c0.Duration(15)
	plane := StartPlane(t, PlaneOptions{
		SyncPeriod: period, DownscaleWindow: c0.Duration(300),
		CPUInitialization: c0.Duration(300), InitialReadiness: c0.Duration(30),
		Metrics: rs, ObserveMetricsCalls: rs.observe,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	factory := informers.NewSharedInformerFactory(plane.Client, 0)
	podLister := factory.Core().V1().Pods().Lister()
	stampReady(ctx, t, plane, rs, factory.Core().V1().Pods().Informer())
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	var runsDone []*sizeRun
	var wg sync.WaitGroup
	for _, c := range cases {
		o := c.options()
		r := &sizeRun{run: &run{ns: c.name, pods: podLister, clock: clockAt(), pods0: o.Pods, horizon: c.horizon, stampDead: o.DeadTime}, c: c}
		wo := WorkloadOptions{Kind: Size, RequestMilli: o.RequestMilli, LimitMilli: o.LimitMilli, PodRate: o.PodRate,
			DemandBefore: float64(o.Pods) * float64(o.Target) / 100 * o.PodRate, Window: 30}
		wo.DemandAfter = c.k * wo.DemandBefore
		r.workload = NewWorkload(r.clock, wo, int(o.Pods), r.ready)
		rs.add(r.run)
		runsDone = append(runsDone, r)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := runSize(ctx, plane, r, period); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		}()
	}
	wg.Wait()
	for _, r := range runsDone {
		checkSize(t, r)
	}
}

// runSize creates the case's Deployment and HPA, steps the demand at a
// sync once the pods rest at the target, and watches the scale.
func runSize(ctx context.Context, p *Plane, r *sizeRun, period time.Duration) error {
	o := r.c.options()
	if err := createWorkload(ctx, p, r.run, o.RequestMilli, o.LimitMilli, o.DeadTime); err != nil {
		return err
	}
	target := o.Target
	metric := autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU,
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &target}}}
	if err := createHPA(ctx, p, r.run, o.Controller.MaxReplicas, metric, nil); err != nil {
		return err
	}
	if err := stepAtSync(ctx, r.run, period); err != nil {
		return err
	}
	return watchScale(ctx, p, r.run)
}
