package diff

import (
	"github.com/capreport/capreport/rules"
)

// Fixtures: a CPU HPA priced for 10x and 30x, and a KEDA consumer's Time
// bill, in the shape rules.Build writes. Each test copies and edits them.

func ip(v int) *int { return &v }

// sizeWorkload is the Size specimen at a 50 % target: 30x in 4 rounds.
func sizeWorkload() rules.Workload {
	return rules.Workload{
		ID:          "shop/HorizontalPodAutoscaler/web",
		Autoscaler:  rules.Ref{Kind: "HorizontalPodAutoscaler", Name: "web", Namespace: "shop"},
		Target:      rules.Ref{Kind: "Deployment", Name: "web", Namespace: "shop"},
		TargetFound: true,
		Source:      rules.Location{File: "manifests/web.yaml", Line: 24},
		Signal:      "saturating",
		MinReplicas: 10,
		MaxReplicas: 1000,
		Metrics:     []rules.Metric{{Type: "Resource", Name: "cpu", Target: "50%", Signal: "saturating"}},
		Size: &rules.SizeBill{
			GrowthFactor: 2, HottestTarget: ip(62), RoundSeconds: 90,
			Overloads: []rules.SizeOverload{
				{K: 10, RoundsBound: ip(4), Rounds: ip(4), TimeToCapacitySeconds: ip(360), PeakReplicas: 160, NeededReplicas: 100,
					PeakBacklog: 41000, PeakWaitSeconds: 41, DrainedAtSeconds: ip(600), Timeline: ramp(0, 30, 10, 160, 12)},
				{K: 30, RoundsBound: ip(5), Rounds: ip(4), TimeToCapacitySeconds: ip(450), PeakReplicas: 320, NeededReplicas: 300,
					PeakBacklog: 150000, PeakWaitSeconds: 50, DrainedAtSeconds: ip(900), Timeline: ramp(0, 30, 10, 320, 16)},
			},
		},
		Verdict:  rules.VerdictPass,
		Findings: []rules.Finding{},
	}
}

// sizeAt80 is the same HPA after the target went to 80 %: the growth
// factor falls to 1.25 and 30x takes 15 rounds, past the latency target.
func sizeAt80() rules.Workload {
	w := sizeWorkload()
	w.Metrics = []rules.Metric{{Type: "Resource", Name: "cpu", Target: "80%", Signal: "saturating"}}
	s := *w.Size
	s.GrowthFactor = 1.25
	s.Overloads = []rules.SizeOverload{
		{K: 10, RoundsBound: ip(11), Rounds: ip(11), TimeToCapacitySeconds: ip(990), PeakReplicas: 110, NeededReplicas: 100,
			PeakBacklog: 120000, PeakWaitSeconds: 130, DrainedAtSeconds: ip(1500), Timeline: ramp(0, 30, 10, 110, 40)},
		{K: 30, RoundsBound: ip(16), Rounds: ip(15), TimeToCapacitySeconds: ip(1770), PeakReplicas: 305, NeededReplicas: 300,
			PeakBacklog: 900000, PeakWaitSeconds: 340, DrainedAtSeconds: ip(2400), Timeline: ramp(0, 30, 10, 305, 70)},
	}
	w.Size = &s
	w.Verdict = rules.VerdictFail
	w.Findings = []rules.Finding{{Check: "size-latency-target", Severity: rules.SeverityError,
		Message: "peak wait at 30x is 340 s, over the 5m0s target"}}
	return w
}

// timeWorkload is a KEDA kafka consumer at rest with the default window.
func timeWorkload() rules.Workload {
	return rules.Workload{
		ID:          "shop/ScaledObject/orders",
		Autoscaler:  rules.Ref{APIVersion: "keda.sh/v1alpha1", Kind: "ScaledObject", Name: "orders", Namespace: "shop"},
		Target:      rules.Ref{Kind: "Deployment", Name: "orders", Namespace: "shop"},
		TargetFound: true,
		Source:      rules.Location{File: "manifests/orders.yaml", Line: 20},
		Signal:      "backlog",
		MinReplicas: 1,
		MaxReplicas: 100,
		Metrics:     []rules.Metric{{Type: "External", Name: "s0-kafka-orders", Target: "AverageValue 1500", Signal: "backlog", Trigger: "kafka"}},
		Time: &rules.TimeBill{
			StandingDelaySeconds: 150, RequiredStandingDelaySeconds: 89.6, MarginSeconds: 60.4, Phi: 0.896,
			WindowInDeadTimes: 3.1, ReplicasMin: 19, ReplicasMax: 21, ReplicasMean: 20.1, ReplicasP5: 19, ReplicasP95: 21,
			NeededReplicas: 20, SwingFraction: 0.1, LatencyFloorSeconds: 89.6,
			WindowToRest: ip(1800), DeadTimeToRest: ip(150),
			Timeline: ramp(0, 60, 5, 21, 200),
		},
		Verdict:  rules.VerdictPass,
		Findings: []rules.Finding{},
	}
}

// timeShortWindow is the consumer after its window went 300 s → 60 s: the
// required standing delay rises past what it carries and it hunts.
func timeShortWindow() rules.Workload {
	w := timeWorkload()
	t := *w.Time
	t.RequiredStandingDelaySeconds, t.MarginSeconds, t.Phi, t.WindowInDeadTimes = 160, -10, 0.4, 1.1
	t.Hunts, t.ReplicasMin, t.ReplicasMax, t.ReplicasMean, t.ReplicasP5, t.ReplicasP95 = true, 6, 35, 20.4, 7, 34
	t.Timeline = wave(0, 60, 6, 35, 200)
	w.Time = &t
	w.Verdict = rules.VerdictWarn
	w.Findings = []rules.Finding{{Check: "time-hunts", Severity: rules.SeverityWarning, Message: "hunts between 6 and 35 pods"}}
	return w
}

// apiWorkload meets a 10x overload in one round with room to spare.
func apiWorkload() rules.Workload {
	w := sizeWorkload()
	w.ID, w.Autoscaler.Name, w.Target.Name = "shop/HorizontalPodAutoscaler/api", "api", "api"
	w.Source.File = "manifests/api.yaml"
	s := *w.Size
	s.GrowthFactor = 4
	s.Overloads = []rules.SizeOverload{
		{K: 10, RoundsBound: ip(1), Rounds: ip(1), TimeToCapacitySeconds: ip(105), PeakReplicas: 160, NeededReplicas: 100,
			PeakBacklog: 84000, PeakWaitSeconds: 21, DrainedAtSeconds: ip(150), Timeline: ramp(0, 30, 10, 160, 5)},
	}
	w.Size = &s
	return w
}

// apiCapped is the same HPA after maxReplicas went 1000 → 50: the one
// round still comes (to the cap), but 50 pods never serve the 100 needed.
func apiCapped() rules.Workload {
	w := apiWorkload()
	w.MaxReplicas = 50
	s := *w.Size
	s.Overloads = []rules.SizeOverload{
		{K: 10, RoundsBound: ip(1), Rounds: ip(1), PeakReplicas: 50, NeededReplicas: 100,
			PeakBacklog: 9e6, PeakWaitSeconds: 3600, Timeline: ramp(0, 30, 10, 50, 5)},
	}
	w.Size = &s
	w.Verdict = rules.VerdictFail
	w.Findings = []rules.Finding{{Check: rules.CheckMaxReplicasBelowNeed, Severity: rules.SeverityError,
		Message: "maxReplicas 50 is below the need at the target: 10x needs 100"}}
	return w
}

// steadyWorkload never changes between base and head.
func steadyWorkload() rules.Workload {
	w := sizeWorkload()
	w.ID, w.Autoscaler.Name, w.Target.Name = "shop/HorizontalPodAutoscaler/static", "static", "static"
	return w
}

func reportOf(ws ...rules.Workload) rules.Report {
	r := rules.Report{SchemaVersion: rules.SchemaVersion, Tool: rules.Tool{Name: "capreport", Version: "v0.1.0-test"},
		Root: "deploy", Workloads: ws}
	for _, w := range ws {
		r.Summary.Autoscalers++
		switch w.Verdict {
		case rules.VerdictPass:
			r.Summary.Pass++
		case rules.VerdictWarn:
			r.Summary.Warn++
		case rules.VerdictFail:
			r.Summary.Fail++
		default:
			r.Summary.Unpriced++
		}
	}
	return r
}

// ramp is a replica series rising from lo to hi over rise samples, then
// flat, n samples dt seconds apart from t0.
func ramp(t0, dt int, lo, hi int32, rise int) *rules.Timeline {
	const n = 120
	tl := &rules.Timeline{}
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
func wave(t0, dt int, lo, hi int32, n int) *rules.Timeline {
	tl := &rules.Timeline{}
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
