package report

import (
	"fmt"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/contract"
)

// The specimen report every golden test renders. Its figures follow the
// essays: "One Bit per Dead Time" at 10x (10 pods at a 50 % CPU target with
// the limit at the request, so g = 2; capacity meets demand at 345 s; the
// count peaks at 317 pods where 100 suffice; 3 rounds against the bound
// ceil(log2(10/2)) = 3), and "The Delay a Window Demands" (a KEDA consumer
// whose 1 s standing delay is far below the 89.6 s a 90 s dead time and a
// 300 s window need, so it hunts, and which KEDA scales to zero, so the
// first message after an idle period waits 30 s + 90 s; and one at 150 s
// that rests).

func ptr[T any](v T) *T { return &v }

// stepTimeline replays scale events into a replica series sampled every
// step seconds up to end, with a constant need: the shape the simulator's
// down-sampled series has after a demand step.
func stepTimeline(start int32, events []contract.ScaleEvent, need float64, step, end int) *contract.Timeline {
	tl := &contract.Timeline{}
	cur, next := start, 0
	for t := 0; t <= end; t += step {
		for next < len(events) && events[next].T <= t {
			cur = events[next].To
			next++
		}
		tl.T = append(tl.T, t)
		tl.Replicas = append(tl.Replicas, cur)
		tl.Needed = append(tl.Needed, need)
	}
	return tl
}

// huntTimeline is the last hour of a hunting loop: the count swings between
// lo and hi with the period of the dead time plus the window.
func huntTimeline(lo, hi int32, need float64, step, end, period int) *contract.Timeline {
	tl := &contract.Timeline{}
	for t := 0; t <= end; t += step {
		phase := t % period
		n := lo
		switch {
		case phase < period/4:
			n = lo + (hi-lo)*int32(phase)/int32(period/4)
		case phase < period/2:
			n = hi
		case phase < 3*period/4:
			n = hi - (hi-lo)*int32(phase-period/2)/int32(period/4)
		}
		tl.T = append(tl.T, t)
		tl.Replicas = append(tl.Replicas, n)
		tl.Needed = append(tl.Needed, need)
	}
	return tl
}

func specimenCheckout() contract.Workload {
	events := []contract.ScaleEvent{
		{T: 15, From: 10, To: 16}, {T: 30, From: 16, To: 20}, {T: 135, From: 20, To: 32},
		{T: 150, From: 32, To: 40}, {T: 255, From: 40, To: 64}, {T: 270, From: 64, To: 80},
		{T: 375, From: 80, To: 128}, {T: 390, From: 128, To: 160}, {T: 495, From: 160, To: 256},
		{T: 510, From: 256, To: 317},
	}
	hpa := contract.Location{File: "charts/shop/templates/hpa.yaml", Line: 7, Source: "charts/shop"}
	return contract.Workload{
		ID:          "shop/HorizontalPodAutoscaler/checkout",
		Autoscaler:  contract.Ref{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler", Name: "checkout", Namespace: "shop"},
		Target:      contract.Ref{APIVersion: "apps/v1", Kind: "Deployment", Name: "checkout", Namespace: "shop"},
		TargetFound: true,
		Source:      hpa,
		Signal:      "saturating",
		MinReplicas: 10,
		MaxReplicas: 400,
		Metrics:     []contract.Metric{{Type: "Resource", Name: "cpu", Target: "50%", Signal: "saturating"}},
		Assumptions: map[string]contract.Assumption{
			"deadTime":            {Value: "1m30s", From: "annotation", Where: &contract.Location{File: "charts/shop/templates/deployment.yaml", Line: 9, Source: "charts/shop"}},
			"podRate":             {Value: "100", From: "annotation", Where: &contract.Location{File: "charts/shop/templates/deployment.yaml", Line: 10, Source: "charts/shop"}},
			"latencyTarget":       {Value: "30s", From: "config", Where: &contract.Location{File: ".capreport.yaml", Line: 12}},
			"overload":            {Value: "3x,10x", From: "config", Where: &contract.Location{File: ".capreport.yaml", Line: 13}},
			"metricWindow":        {Value: "30s", From: "default"},
			"saturatedEfficiency": {Value: "1", From: "default"},
		},
		Size: &contract.SizeBill{
			GrowthFactor:  2,
			HottestTarget: ptr(35),
			RoundSeconds:  120,
			Overloads: []contract.SizeOverload{
				{
					K: 3, RoundsBound: ptr(1), Rounds: ptr(1), TimeToCapacitySeconds: ptr(105),
					PeakReplicas: 40, NeededReplicas: 30, Overshoot: 1.33, PeakBacklog: 201000,
					PeakWaitSeconds: 67, DrainedAtSeconds: ptr(255),
					ScaleEvents: []contract.ScaleEvent{{T: 15, From: 10, To: 20}, {T: 135, From: 20, To: 40}},
				},
				{
					K: 10, RoundsBound: ptr(3), Rounds: ptr(3), TimeToCapacitySeconds: ptr(345),
					PeakReplicas: 317, NeededReplicas: 100, Overshoot: 3.17, PeakBacklog: 918000,
					PeakWaitSeconds: 143, DrainedAtSeconds: ptr(480),
					ScaleEvents: events,
					Timeline:    stepTimeline(10, events, 100, 15, 900),
				},
			},
			RoundsCurve: []contract.RoundsPoint{
				{K: 2, Rounds: ptr(0), Bound: ptr(0)}, {K: 3, Rounds: ptr(1), Bound: ptr(1)}, {K: 5, Rounds: ptr(2), Bound: ptr(2)},
				{K: 10, Rounds: ptr(3), Bound: ptr(3)}, {K: 30, Rounds: ptr(4), Bound: ptr(4)}, {K: 100, Rounds: ptr(6), Bound: ptr(6)},
			},
		},
		Verdict: contract.VerdictFail,
		Latency: &contract.LatencyCheck{TargetSeconds: 30, ExpectedSeconds: 143, Basis: "peak wait at 10x", Met: false},
		Findings: []contract.Finding{
			{
				Check: "size-overshoot", Severity: check.SeverityWarning,
				Message:     "At 10x the HPA peaks at 317 pods where 100 suffice (3.17x): the backlog keeps CPU saturated after capacity meets demand at 345 s.",
				Remediation: "Cap scale-up with behavior.scaleUp.policies (e.g. 100 % per 60 s) or drive the HPA from a backlog metric.",
				Location:    &hpa,
			},
			{
				Check: "latency-target", Severity: check.SeverityError,
				Message:     "Peak wait 143 s at 10x exceeds the 30 s latency target: capacity arrives after 3 rounds of 120 s (345 s).",
				Remediation: "Lower the CPU target to 35 % (the hottest target that meets 10x within the recovery rounds) or raise the CPU limit above the request so one round grows by more than 2x.",
				Location:    &contract.Location{File: "charts/shop/templates/hpa.yaml", Line: 14, Source: "charts/shop"},
			},
			{
				Check: "assumption-default", Severity: check.SeverityInfo,
				Message:     "metricWindow uses the default 30s.",
				Remediation: "Set the capreport.io/metric-window annotation to the metrics-server resolution of the cluster.",
			},
		},
	}
}

func specimenFrontend() contract.Workload {
	hpa := contract.Location{File: "deploy/web/hpa.yaml", Line: 1}
	return contract.Workload{
		ID:          "web/HorizontalPodAutoscaler/frontend",
		Autoscaler:  contract.Ref{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler", Name: "frontend", Namespace: "web"},
		Target:      contract.Ref{APIVersion: "apps/v1", Kind: "Deployment", Name: "frontend", Namespace: "web"},
		TargetFound: true,
		Source:      hpa,
		Signal:      "saturating",
		MinReplicas: 10,
		MaxReplicas: 200,
		Metrics:     []contract.Metric{{Type: "Resource", Name: "cpu", Target: "50%", Signal: "saturating"}},
		Assumptions: map[string]contract.Assumption{
			"deadTime":      {Value: "1m30s", From: "annotation", Where: &contract.Location{File: "deploy/web/deployment.yaml", Line: 8}},
			"podRate":       {Value: "200", From: "annotation", Where: &contract.Location{File: "deploy/web/deployment.yaml", Line: 9}},
			"latencyTarget": {Value: "30s", From: "config", Where: &contract.Location{File: ".capreport.yaml", Line: 12}},
			"overload":      {Value: "10x", From: "default"},
		},
		Size: &contract.SizeBill{
			GrowthFactor: 4,
			RoundSeconds: 120,
			Overloads: []contract.SizeOverload{{
				K: 10, RoundsBound: ptr(1), Rounds: ptr(1), TimeToCapacitySeconds: ptr(105),
				PeakReplicas: 160, NeededReplicas: 100, Overshoot: 1.6, PeakBacklog: 84000,
				PeakWaitSeconds: 21, DrainedAtSeconds: ptr(150),
				ScaleEvents: []contract.ScaleEvent{{T: 15, From: 10, To: 40}, {T: 135, From: 40, To: 160}},
			}},
		},
		Verdict: contract.VerdictWarn,
		Latency: &contract.LatencyCheck{TargetSeconds: 30, ExpectedSeconds: 21, Basis: "peak wait at 10x", Met: true},
		Findings: []contract.Finding{{
			Check: "size-overshoot", Severity: check.SeverityWarning,
			Message:     "At 10x the HPA peaks at 160 pods where 100 suffice (1.6x).",
			Remediation: "Cap scale-up with behavior.scaleUp.policies (e.g. 100 % per 60 s).",
			Location:    &hpa,
		}},
	}
}

func specimenLedger() contract.Workload {
	so := contract.Location{File: "deploy/payments/ledger-consumer.yaml", Line: 21, Source: "deploy/payments"}
	return contract.Workload{
		ID:          "payments/ScaledObject/ledger-consumer",
		Autoscaler:  contract.Ref{APIVersion: "keda.sh/v1alpha1", Kind: "ScaledObject", Name: "ledger-consumer", Namespace: "payments"},
		Target:      contract.Ref{APIVersion: "apps/v1", Kind: "Deployment", Name: "ledger-consumer", Namespace: "payments"},
		TargetFound: true,
		Source:      so,
		Signal:      "backlog",
		MinReplicas: 0,
		MaxReplicas: 50,
		Metrics:     []contract.Metric{{Type: "External", Name: "s0-kafka-ledger", Target: "AverageValue 10", Signal: "backlog", Trigger: "kafka"}},
		KEDA: &contract.KEDA{MinReplicaCount: 0, MinReplicaCountFrom: "default", HPAMinReplicas: 1, PollingIntervalSeconds: 30,
			CooldownPeriodSeconds: 300, ScalesToZero: true,
			Activations: []contract.KEDAActivation{{Trigger: 0, Type: "kafka", Param: "activationLagThreshold", Threshold: 0}}},
		Assumptions: map[string]contract.Assumption{
			"deadTime":      {Value: "1m30s", From: "annotation", Where: &contract.Location{File: "deploy/payments/ledger-consumer.yaml", Line: 6, Source: "deploy/payments"}},
			"podRate":       {Value: "10", From: "annotation", Where: &contract.Location{File: "deploy/payments/ledger-consumer.yaml", Line: 7, Source: "deploy/payments"}},
			"latencyTarget": {Value: "60s", From: "annotation", Where: &contract.Location{File: "deploy/payments/ledger-consumer.yaml", Line: 8, Source: "deploy/payments"}},
			"step":          {Value: "4x", From: "default"},
		},
		Time: &contract.TimeBill{
			StandingDelaySeconds: 1, RequiredStandingDelaySeconds: 89.6, MarginSeconds: -88.6,
			Phi: 0.896, WindowInDeadTimes: 3.1, Hunts: true, StatsWindowSeconds: 3600,
			ReplicasMin: 6, ReplicasMax: 35, ReplicasMean: 27.4, ReplicasP5: 7, ReplicasP95: 34,
			NeededReplicas: 20, SwingFraction: 1.45, MeanOverNeed: 0.37, LatencyFloorSeconds: 89.6,
			ThresholdToRest: ptr(1030.0),
			ScaleFromZero: &contract.ScaleFromZero{FirstMessageWaitSeconds: 120, ActivationMessages: 1,
				PollingIntervalSeconds: 30, DeadTimeSeconds: 90, IdleAfterSeconds: 330},
			Timeline: huntTimeline(6, 35, 20, 30, 3600, 400),
		},
		Verdict: contract.VerdictFail,
		Latency: &contract.LatencyCheck{TargetSeconds: 60, ExpectedSeconds: 120, Basis: "first message after idle", Met: false},
		Findings: []contract.Finding{
			{
				Check: "time-hunting", Severity: check.SeverityError,
				Message:     "Standing delay 1 s is below the 89.6 s that a 90 s dead time and a 300 s window need: the loop hunts between 6 and 35 pods where 20 suffice.",
				Remediation: "Raise lagThreshold to 1030 messages per pod (D = 103 s, 15 % margin); no window rests at today's threshold.",
				Location:    &so,
			},
			{
				Check: "latency-floor", Severity: check.SeverityError,
				Message:     "The 60 s latency target is below the 89.6 s floor (Cor. 3) this dead time and window allow at rest.",
				Remediation: "Shorten the dead time (image pull, warm-up) or accept a latency target of at least 90 s.",
				Location:    &contract.Location{File: "deploy/payments/ledger-consumer.yaml", Line: 8, Source: "deploy/payments"},
			},
			{
				Check: "first-message-wait-over-target", Severity: check.SeverityError,
				Message:     "after 5 min 30 s without messages KEDA has scaled the consumer to zero: the first message then waits up to 2 min (polling interval 30 s + dead time 90 s), above the 60 s latency target",
				Remediation: "Keep a pod warm with minReplicaCount: 1 if the target holds after idle too; otherwise shorten pollingInterval, cut the dead time, or lower the activation threshold.",
				Location:    &so,
			},
		},
	}
}

func specimenInvoice() contract.Workload {
	so := contract.Location{File: "deploy/payments/invoice-worker.yaml", Line: 19, Source: "deploy/payments"}
	return contract.Workload{
		ID:          "payments/ScaledObject/invoice-worker",
		Autoscaler:  contract.Ref{APIVersion: "keda.sh/v1alpha1", Kind: "ScaledObject", Name: "invoice-worker", Namespace: "payments"},
		Target:      contract.Ref{APIVersion: "apps/v1", Kind: "Deployment", Name: "invoice-worker", Namespace: "payments"},
		TargetFound: true,
		Source:      so,
		Signal:      "backlog",
		MinReplicas: 2,
		MaxReplicas: 40,
		Metrics:     []contract.Metric{{Type: "External", Name: "s0-rabbitmq-invoices", Target: "AverageValue 1500", Signal: "backlog", Trigger: "rabbitmq"}},
		Assumptions: map[string]contract.Assumption{
			"deadTime":      {Value: "1m30s", From: "annotation", Where: &contract.Location{File: "deploy/payments/invoice-worker.yaml", Line: 6, Source: "deploy/payments"}},
			"podRate":       {Value: "10", From: "annotation", Where: &contract.Location{File: "deploy/payments/invoice-worker.yaml", Line: 7, Source: "deploy/payments"}},
			"latencyTarget": {Value: "3m0s", From: "annotation", Where: &contract.Location{File: "deploy/payments/invoice-worker.yaml", Line: 8, Source: "deploy/payments"}},
			"step":          {Value: "4x", From: "default"},
		},
		Time: &contract.TimeBill{
			StandingDelaySeconds: 150, RequiredStandingDelaySeconds: 89.6, MarginSeconds: 60.4,
			Phi: 0.896, WindowInDeadTimes: 3.1, Hunts: false, StatsWindowSeconds: 3600,
			ReplicasMin: 19, ReplicasMax: 21, ReplicasMean: 20.1, ReplicasP5: 19, ReplicasP95: 21,
			NeededReplicas: 20, SwingFraction: 0.1, MeanOverNeed: 0.005, LatencyFloorSeconds: 89.6,
			WindowToRest: ptr(1800), DeadTimeToRest: ptr(150),
		},
		Verdict: contract.VerdictPass,
		Latency: &contract.LatencyCheck{TargetSeconds: 180, ExpectedSeconds: 150, Basis: "standing delay at rest", Met: true},
		Findings: []contract.Finding{{
			Check: "assumption-default", Severity: check.SeverityWarning,
			Message: "step uses the default 4x.", Ignored: true,
			IgnoreReason: "4x is the agreed design step for queues (RUNBOOK-12)",
		}},
	}
}

func specimenQuery() contract.Workload {
	hpa := contract.Location{File: "deploy/search/hpa.yaml", Line: 1}
	return contract.Workload{
		ID:             "search/HorizontalPodAutoscaler/query-api",
		Autoscaler:     contract.Ref{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler", Name: "query-api", Namespace: "search"},
		Target:         contract.Ref{APIVersion: "apps/v1", Kind: "Deployment", Name: "query-api", Namespace: "search"},
		TargetFound:    true,
		Source:         hpa,
		Signal:         "rate",
		MinReplicas:    3,
		MaxReplicas:    30,
		Metrics:        []contract.Metric{{Type: "Pods", Name: "http_requests_per_second", Target: "AverageValue 50", Signal: "rate"}},
		Assumptions:    map[string]contract.Assumption{},
		Verdict:        contract.VerdictUnpriced,
		UnpricedReason: "a request-rate signal is not priced yet (rows 3 and 4 of the series are not specified)",
		Findings: []contract.Finding{{
			Check: "unpriced-signal", Severity: check.SeverityInfo,
			Message:     "http_requests_per_second is a demand-rate signal: it cannot see retry debt, so capreport does not price it.",
			Remediation: "Set capreport.io/signal: backlog if the metric is a queue length.",
			Location:    &hpa,
		}},
	}
}

// specimenReport is the report of a small repository with every kind of
// row: two Size bills (fail, warn), two Time bills (hunts, rests), one
// unpriced rate signal, findings of every severity (one ignored), and a
// source that failed to render. Workloads are in id order, as rules emits.
func specimenReport() contract.Report {
	return contract.Report{
		SchemaVersion: contract.SchemaVersion,
		Tool:          contract.Tool{Name: "capreport", Version: "v0.1.0-test"},
		GeneratedAt:   "2026-11-30T12:00:00Z",
		Root:          "./deploy",
		Summary:       contract.Summary{Autoscalers: 5, Pass: 1, Warn: 1, Fail: 2, Unpriced: 1, Errors: 5, Warnings: 2},
		Workloads: []contract.Workload{
			specimenInvoice(), specimenLedger(), specimenQuery(), specimenCheckout(), specimenFrontend(),
		},
		Sources: []contract.Source{
			{Path: "charts/shop", Type: "helm", ValueSet: "production", Status: "rendered", Objects: 14},
			{Path: "charts/legacy", Type: "helm", Status: "failed", Objects: 0,
				Reason: `template: legacy/templates/hpa.yaml:12:14: executing "legacy/templates/hpa.yaml" at <.Values.autoscaling.targetCPU>: nil pointer evaluating interface {}.targetCPU`},
			{Path: "deploy/payments", Type: "kustomize", Status: "rendered", Objects: 9},
			{Path: "deploy/search/hpa.yaml", Type: "file", Status: "rendered", Objects: 1},
			{Path: "deploy/web", Type: "file", Status: "rendered", Objects: 3},
		},
		Findings: []contract.Finding{{
			Check: "render-failed", Severity: check.SeverityError,
			Message:     "charts/legacy failed to render; its autoscalers are missing from this report.",
			Remediation: "Fix the template, or add a value set in .capreport.yaml that sets autoscaling.targetCPU.",
			Location:    &contract.Location{File: "charts/legacy/templates/hpa.yaml", Line: 12, Source: "charts/legacy"},
		}},
	}
}

// syntheticReport is n failing workloads with long names, full bills and
// findings: the shape of a monorepo that would blow a comment's budget.
func syntheticReport(n int) contract.Report {
	r := specimenReport()
	r.Workloads = nil
	r.Summary = contract.Summary{Autoscalers: n, Fail: n, Errors: n}
	for i := range n {
		w := specimenCheckout()
		w.ID = fmt.Sprintf("team-%04d/HorizontalPodAutoscaler/a-rather-long-service-name-for-budgeting-%04d", i, i)
		w.Autoscaler.Name = fmt.Sprintf("a-rather-long-service-name-for-budgeting-%04d", i)
		r.Workloads = append(r.Workloads, w)
	}
	for i := range n / 2 {
		r.Sources = append(r.Sources, contract.Source{Path: fmt.Sprintf("charts/service-%04d", i), Type: "helm", Status: "rendered", Objects: 12})
	}
	return r
}
