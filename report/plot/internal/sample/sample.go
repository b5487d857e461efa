// Package sample builds the sample workloads of the example plots in
// docs/plots and of the plot tests. They are SAMPLES: their timelines are
// shaped after the essays' specimens by a few lines of arithmetic here, not
// produced by capreport's simulator, and no bill in a report comes from
// this package.
package sample

import (
	"math"
	"slices"

	"github.com/capreport/capreport/analyze/phi"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/rules"
)

// Specimen is the Size row's running specimen at 10 times its demand (and
// 3 times, for a second staircase): 10 pods at a 50 % CPU target, limit =
// request = 1 core, 100 req/s per pod at 100 %, dead time 90 s, 30-s metric
// window, so g = 2 and a round is 120 s. The orders are the essay's (16 @
// 15 s, 20 @ 30 s, 32 @ 135 s, 40 @ 150 s, 64 @ 255 s) continued to a peak
// of 317 pods; serving capacity meets demand at 345 s.
func Specimen() contract.Workload {
	ten := staircase(10, 100, []contract.ScaleEvent{
		{T: 15, From: 10, To: 16}, {T: 30, From: 16, To: 20},
		{T: 135, From: 20, To: 32}, {T: 150, From: 32, To: 40},
		{T: 255, From: 40, To: 64}, {T: 270, From: 64, To: 80},
		{T: 375, From: 80, To: 160}, {T: 390, From: 160, To: 317},
	}, 3)
	three := staircase(3, 30, []contract.ScaleEvent{
		{T: 15, From: 10, To: 16}, {T: 30, From: 16, To: 20}, {T: 150, From: 20, To: 40},
	}, 1)
	thirty := contract.SizeOverload{
		K: 30, RoundsBound: ptr(4), Rounds: ptr(4), TimeToCapacitySeconds: ptr(465),
		PeakReplicas: 1250, NeededReplicas: 300, Overshoot: 1250.0/300 - 1,
	}

	var curve []contract.RoundsPoint
	for _, k := range []float64{1.5, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300} {
		b := int(math.Max(0, math.Ceil(math.Log2(k*0.5)-1e-9)))
		curve = append(curve, contract.RoundsPoint{K: k, Rounds: ptr(b), Bound: ptr(b)})
	}

	return contract.Workload{
		ID:          "shop/HorizontalPodAutoscaler/web",
		Autoscaler:  contract.Ref{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler", Name: "web", Namespace: "shop"},
		Target:      contract.Ref{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Namespace: "shop"},
		TargetFound: true,
		Source:      contract.Location{File: "deploy/web/hpa.yaml", Line: 1},
		Signal:      "saturating",
		MinReplicas: 10,
		MaxReplicas: 2000,
		Metrics:     []contract.Metric{{Type: "Resource", Name: "cpu", Target: "50%", Signal: "saturating"}},
		Assumptions: map[string]contract.Assumption{
			"dead-time":      {Value: "90s", From: "annotation"},
			"pod-rate":       {Value: "100", From: "annotation"},
			"latency-target": {Value: "30s", From: "annotation"},
			"overload":       {Value: "3x,10x,30x", From: "annotation"},
		},
		Size: &contract.SizeBill{
			GrowthFactor: 2,
			RoundSeconds: 120,
			Overloads:    []contract.SizeOverload{three, ten, thirty},
			RoundsCurve:  curve,
		},
		Verdict: contract.VerdictFail,
	}
}

// staircase shapes one overload k of the specimen: the orders given, pods
// serving from order + 90 s, a fluid queue at 100 req/s per serving pod,
// sampled every 5 s from −60 s to 720 s.
func staircase(k float64, needed int, events []contract.ScaleEvent, rounds int) contract.SizeOverload {
	const (
		n0, tau, rate = 10, 90, 100.0
		from, to, dt  = -60, 720, 5
	)
	lambda := func(t int) float64 {
		if t < 0 {
			return n0 * 0.5 * rate
		}
		return k * n0 * 0.5 * rate
	}
	ordered := func(t int) int32 {
		n := int32(n0)
		for _, e := range events {
			if e.T <= t {
				n = e.To
			}
		}
		return n
	}
	serving := func(t int) int32 { return ordered(t - tau) }

	o := contract.SizeOverload{K: k, RoundsBound: ptr(rounds), Rounds: ptr(rounds), NeededReplicas: needed, ScaleEvents: events}
	tl := &contract.Timeline{}
	backlog := 0.0
	for t := from; t <= to; t++ {
		capacity := float64(serving(t)) * rate
		served := math.Min(capacity, backlog+lambda(t))
		backlog += lambda(t) - served
		if t >= 0 && o.TimeToCapacitySeconds == nil && capacity >= lambda(t) {
			o.TimeToCapacitySeconds = ptr(t)
		}
		if o.TimeToCapacitySeconds != nil && o.DrainedAtSeconds == nil && backlog <= 0.5 {
			o.DrainedAtSeconds = ptr(t)
		}
		wait := backlog / capacity
		o.PeakBacklog = math.Max(o.PeakBacklog, backlog)
		o.PeakWaitSeconds = math.Max(o.PeakWaitSeconds, math.Round(wait))
		if (t-from)%dt == 0 {
			tl.T = append(tl.T, t)
			tl.Replicas = append(tl.Replicas, ordered(t))
			tl.Serving = append(tl.Serving, serving(t))
			need := float64(needed)
			if t < 0 {
				need = n0
			}
			tl.Needed = append(tl.Needed, need)
			tl.Backlog = append(tl.Backlog, math.Round(backlog))
			tl.Wait = append(tl.Wait, math.Round(wait*10)/10)
		}
	}
	for _, r := range tl.Replicas {
		o.PeakReplicas = max(o.PeakReplicas, int(r))
	}
	o.Overshoot = float64(o.PeakReplicas)/float64(needed) - 1
	o.PeakBacklog = math.Round(o.PeakBacklog)
	o.Timeline = tl
	return o
}

// The Hunting sample's loop: a 510-s cycle, demand λ = 200 msg/s, c = 10
// msg/s per pod, dead time 90 s; the timeline runs from 19 h to 20 h,
// sampled every 15 s.
const (
	huntPeriod, huntLambda, huntC, huntTau = 510, 200.0, 10.0, 90
	huntFrom, huntTo, huntDt               = 68400, 72000, 15
)

// huntRamp is the climb of each cycle, one sync (huntDt) apart from t' = 0.
var huntRamp = []int32{6, 9, 13, 18, 24, 30, 35}

// Hunting is the Time row's kit consumer at a 60-s standing delay: demand
// 200 msg/s, 10 msg/s per pod (20 pods needed), threshold 600 messages per
// pod, dead time 90 s, the default 300-s window. It hunts between 6 and 35
// pods on a 510-s cycle: a ramp while the backlog builds, a plateau the
// window holds after the backlog has drained, a collapse when it lets go.
// The timeline is the last hour of a 20-hour run, every 15 s.
func Hunting() contract.Workload {
	tl, counts := huntingRun()
	mean := 0.0
	for _, v := range counts {
		mean += v
	}
	mean /= float64(len(counts))
	needed := int(huntLambda / huntC)

	const tauEff, wEff, standing = huntTau + 10.0, 300 + 10.0, 60.0
	win := wEff / tauEff
	p := phi.Phi(win)
	w := contract.Workload{
		ID:          "jobs/ScaledObject/invoice-consumer",
		Autoscaler:  contract.Ref{APIVersion: "keda.sh/v1alpha1", Kind: "ScaledObject", Name: "invoice-consumer", Namespace: "jobs"},
		Target:      contract.Ref{APIVersion: "apps/v1", Kind: "Deployment", Name: "invoice-consumer", Namespace: "jobs"},
		TargetFound: true,
		Source:      contract.Location{File: "deploy/invoice/scaledobject.yaml", Line: 1},
		Signal:      "backlog",
		MinReplicas: 1,
		MaxReplicas: 100,
		Metrics:     []contract.Metric{{Type: "External", Name: "s0-rabbitmq-invoices", Target: "AverageValue 600", Signal: "backlog", Trigger: "rabbitmq"}},
		Assumptions: map[string]contract.Assumption{
			"dead-time": {Value: "90s", From: "annotation"},
			"pod-rate":  {Value: "10", From: "annotation"},
		},
		Time: &contract.TimeBill{
			StandingDelaySeconds:         standing,
			RequiredStandingDelaySeconds: math.Round(tauEff*p*10) / 10,
			MarginSeconds:                math.Round((standing-tauEff*p)*10) / 10,
			Phi:                          math.Round(p*1000) / 1000,
			WindowInDeadTimes:            win,
			Hunts:                        true,
			ReplicasMin:                  int32(counts[0]),
			ReplicasMax:                  int32(counts[len(counts)-1]),
			ReplicasMean:                 math.Round(mean*10) / 10,
			ReplicasP5:                   percentile(counts, 0.05),
			ReplicasP95:                  percentile(counts, 0.95),
			NeededReplicas:               needed,
			SwingFraction:                (counts[len(counts)-1] - counts[0]) / float64(needed),
			MeanOverNeed:                 mean/float64(needed) - 1,
			LatencyFloorSeconds:          math.Round(tauEff*p*10) / 10,
			Timeline:                     tl,
		},
		Verdict: contract.VerdictFail,
	}
	w.Time.PhiCurve = rules.PhiCurve(w.Time)
	return w
}

// huntingRun runs the fluid queue from two cycles before the timeline's
// start, so the backlog it opens on is the steady cycle's and not an empty
// queue's, and samples it every huntDt. counts holds the replica count of
// every second of the timeline, sorted, for the bill's order statistics.
func huntingRun() (tl *contract.Timeline, counts []float64) {
	tl = &contract.Timeline{}
	backlog := 0.0
	for t := huntFrom - 2*huntPeriod; t <= huntTo; t++ {
		backlog = math.Max(0, backlog+huntLambda-huntC*float64(huntingConsuming(t)))
		if t < huntFrom {
			continue
		}
		counts = append(counts, float64(huntingReplicas(t)))
		if (t-huntFrom)%huntDt == 0 {
			tl.T = append(tl.T, t)
			tl.Replicas = append(tl.Replicas, huntingReplicas(t))
			tl.Needed = append(tl.Needed, huntLambda/huntC)
			tl.Backlog = append(tl.Backlog, math.Round(backlog))
		}
	}
	slices.Sort(counts)
	return tl, counts
}

// huntingReplicas is the replica count at t: the ramp, the plateau the
// window holds to t' = 420 s, then the collapse to 6 for the cycle's rest.
func huntingReplicas(t int) int32 {
	p := ((t % huntPeriod) + huntPeriod) % huntPeriod
	switch {
	case p < len(huntRamp)*huntDt:
		return huntRamp[p/huntDt]
	case p < 420:
		return 35
	default:
		return 6
	}
}

// huntingConsuming is the pods serving at t: a pod serves one dead time
// after it is ordered, and stops as soon as it is scaled away.
func huntingConsuming(t int) int32 { return min(huntingReplicas(t), huntingReplicas(t-huntTau)) }

// percentile is the linear-interpolated percentile of sorted values.
func percentile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}

func ptr[T any](v T) *T { return &v }
