package diff

import (
	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/contract"
)

// Fixtures: a CPU HPA priced for 10x and 30x, and a KEDA consumer's Time
// bill, in the shape rules.Build writes. Each test copies and edits them.

func ip(v int) *int { return &v }

// sizeWorkload is the Size specimen at a 50 % target: 30x in 4 rounds.
func sizeWorkload() contract.Workload {
	return contract.Workload{
		ID:          "shop/HorizontalPodAutoscaler/web",
		Autoscaler:  contract.Ref{Kind: "HorizontalPodAutoscaler", Name: "web", Namespace: "shop"},
		Target:      contract.Ref{Kind: "Deployment", Name: "web", Namespace: "shop"},
		TargetFound: true,
		Source:      contract.Location{File: "manifests/web.yaml", Line: 24},
		Signal:      "saturating",
		MinReplicas: 10,
		MaxReplicas: 1000,
		Metrics:     []contract.Metric{{Type: "Resource", Name: "cpu", Target: "50%", Signal: "saturating"}},
		Size: &contract.SizeBill{
			GrowthFactor: 2, HottestTarget: ip(62), RoundSeconds: 90,
			Overloads: []contract.SizeOverload{
				{K: 10, RoundsBound: ip(4), Rounds: ip(4), TimeToCapacitySeconds: ip(360), PeakReplicas: 160, NeededReplicas: 100,
					PeakBacklog: 41000, PeakWaitSeconds: 41, DrainedAtSeconds: ip(600), Timeline: ramp(0, 30, 10, 160, 12)},
				{K: 30, RoundsBound: ip(5), Rounds: ip(4), TimeToCapacitySeconds: ip(450), PeakReplicas: 320, NeededReplicas: 300,
					PeakBacklog: 150000, PeakWaitSeconds: 50, DrainedAtSeconds: ip(900), Timeline: ramp(0, 30, 10, 320, 16)},
			},
		},
		Verdict:  contract.VerdictPass,
		Findings: []contract.Finding{},
	}
}

// sizeAt80 is the same HPA after the target went to 80 %: the growth
// factor falls to 1.25 and 30x takes 15 rounds, past the latency target.
func sizeAt80() contract.Workload {
	w := sizeWorkload()
	w.Metrics = []contract.Metric{{Type: "Resource", Name: "cpu", Target: "80%", Signal: "saturating"}}
	s := *w.Size
	s.GrowthFactor = 1.25
	s.Overloads = []contract.SizeOverload{
		{K: 10, RoundsBound: ip(11), Rounds: ip(11), TimeToCapacitySeconds: ip(990), PeakReplicas: 110, NeededReplicas: 100,
			PeakBacklog: 120000, PeakWaitSeconds: 130, DrainedAtSeconds: ip(1500), Timeline: ramp(0, 30, 10, 110, 40)},
		{K: 30, RoundsBound: ip(16), Rounds: ip(15), TimeToCapacitySeconds: ip(1770), PeakReplicas: 305, NeededReplicas: 300,
			PeakBacklog: 900000, PeakWaitSeconds: 340, DrainedAtSeconds: ip(2400), Timeline: ramp(0, 30, 10, 305, 70)},
	}
	w.Size = &s
	w.Verdict = contract.VerdictFail
	w.Findings = []contract.Finding{{Check: "size-latency-target", Severity: check.SeverityError,
		Message: "peak wait at 30x is 340 s, over the 5m0s target"}}
	return w
}

// timeWorkload is a KEDA kafka consumer at rest with the default window.
func timeWorkload() contract.Workload {
	return contract.Workload{
		ID:          "shop/ScaledObject/orders",
		Autoscaler:  contract.Ref{APIVersion: "keda.sh/v1alpha1", Kind: "ScaledObject", Name: "orders", Namespace: "shop"},
		Target:      contract.Ref{Kind: "Deployment", Name: "orders", Namespace: "shop"},
		TargetFound: true,
		Source:      contract.Location{File: "manifests/orders.yaml", Line: 20},
		Signal:      "backlog",
		MinReplicas: 1,
		MaxReplicas: 100,
		Metrics:     []contract.Metric{{Type: "External", Name: "s0-kafka-orders", Target: "AverageValue 1500", Signal: "backlog", Trigger: "kafka"}},
		Time: &contract.TimeBill{
			StandingDelaySeconds: 150, RequiredStandingDelaySeconds: 89.6, MarginSeconds: 60.4, Phi: 0.896,
			WindowInDeadTimes: 3.1, ReplicasMin: 19, ReplicasMax: 21, ReplicasMean: 20.1, ReplicasP5: 19, ReplicasP95: 21,
			NeededReplicas: 20, SwingFraction: 0.1, LatencyFloorSeconds: 89.6,
			WindowToRest: ip(1800), DeadTimeToRest: ip(150),
			Timeline: ramp(0, 60, 5, 21, 200),
		},
		Verdict:  contract.VerdictPass,
		Findings: []contract.Finding{},
	}
}

// timeShortWindow is the consumer after its window went 300 s → 60 s: the
// required standing delay rises past what it carries and it hunts.
func timeShortWindow() contract.Workload {
	w := timeWorkload()
	t := *w.Time
	t.RequiredStandingDelaySeconds, t.MarginSeconds, t.Phi, t.WindowInDeadTimes = 160, -10, 0.4, 1.1
	t.Hunts, t.ReplicasMin, t.ReplicasMax, t.ReplicasMean, t.ReplicasP5, t.ReplicasP95 = true, 6, 35, 20.4, 7, 34
	t.Timeline = wave(0, 60, 6, 35, 200)
	w.Time = &t
	w.Verdict = contract.VerdictWarn
	w.Findings = []contract.Finding{{Check: "time-hunts", Severity: check.SeverityWarning, Message: "hunts between 6 and 35 pods"}}
	return w
}

// timeToZero is the consumer after its minReplicaCount was removed: KEDA
// now scales it to zero, and the first message after an idle period
// waits 30 s + 90 s.
func timeToZero() contract.Workload {
	w := timeWorkload()
	t := *w.Time
	t.ScaleFromZero = &contract.ScaleFromZero{FirstMessageWaitSeconds: 120, ActivationMessages: 1,
		PollingIntervalSeconds: 30, DeadTimeSeconds: 90, IdleAfterSeconds: 330}
	w.Time = &t
	w.MinReplicas = 0
	return w
}

// apiWorkload meets a 10x overload in one round with room to spare.
func apiWorkload() contract.Workload {
	w := sizeWorkload()
	w.ID, w.Autoscaler.Name, w.Target.Name = "shop/HorizontalPodAutoscaler/api", "api", "api"
	w.Source.File = "manifests/api.yaml"
	s := *w.Size
	s.GrowthFactor = 4
	s.Overloads = []contract.SizeOverload{
		{K: 10, RoundsBound: ip(1), Rounds: ip(1), TimeToCapacitySeconds: ip(105), PeakReplicas: 160, NeededReplicas: 100,
			PeakBacklog: 84000, PeakWaitSeconds: 21, DrainedAtSeconds: ip(150), Timeline: ramp(0, 30, 10, 160, 5)},
	}
	w.Size = &s
	return w
}

// apiCapped is the same HPA after maxReplicas went 1000 → 50: the one
// round still comes (to the cap), but 50 pods never serve the 100 needed.
func apiCapped() contract.Workload {
	w := apiWorkload()
	w.MaxReplicas = 50
	s := *w.Size
	s.Overloads = []contract.SizeOverload{
		{K: 10, RoundsBound: ip(1), Rounds: ip(1), PeakReplicas: 50, NeededReplicas: 100,
			PeakBacklog: 9e6, PeakWaitSeconds: 3600, Timeline: ramp(0, 30, 10, 50, 5)},
	}
	w.Size = &s
	w.Verdict = contract.VerdictFail
	w.Findings = []contract.Finding{{Check: check.MaxReplicasBelowNeed, Severity: check.SeverityError,
		Message: "maxReplicas 50 is below the need at the target: 10x needs 100"}}
	return w
}

// steadyWorkload never changes between base and head.
func steadyWorkload() contract.Workload {
	w := sizeWorkload()
	w.ID, w.Autoscaler.Name, w.Target.Name = "shop/HorizontalPodAutoscaler/static", "static", "static"
	return w
}

func reportOf(ws ...contract.Workload) contract.Report {
	r := contract.Report{SchemaVersion: contract.SchemaVersion, Tool: contract.Tool{Name: "capreport", Version: "v0.1.0-test"},
		Root: "deploy", Workloads: ws}
	for _, w := range ws {
		r.Summary.Autoscalers++
		switch w.Verdict {
		case contract.VerdictPass:
			r.Summary.Pass++
		case contract.VerdictWarn:
			r.Summary.Warn++
		case contract.VerdictFail:
			r.Summary.Fail++
		default:
			r.Summary.Unpriced++
		}
	}
	return r
}

// ramp is a replica series rising from lo to hi over rise samples, then
// flat, n samples dt seconds apart from t0.
func ramp(t0, dt int, lo, hi int32, rise int) *contract.Timeline {
	const n = 120
	tl := &contract.Timeline{}
	for i := range n {
		tl.T = append(tl.T, t0+i*dt)
		v := hi
		if i < rise {
			v = lo + (hi-lo)*int32(i)/int32(rise)
		}
		tl.Replicas = append(tl.Replicas, v)
	}
	return tl
}

// wave is a hunting series between lo and hi.
func wave(t0, dt int, lo, hi int32, n int) *contract.Timeline {
	tl := &contract.Timeline{}
	for i := range n {
		tl.T = append(tl.T, t0+i*dt)
		v := lo
		if (i/8)%2 == 0 {
			v = hi
		}
		tl.Replicas = append(tl.Replicas, v)
	}
	return tl
}
