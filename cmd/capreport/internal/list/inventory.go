package list

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/render"
	"github.com/capreport/capreport/rules"
)

// listOutput is `capreport list --format json`: the inventory contract,
// with the text listing's methods.
type listOutput contract.Inventory

func placeOf(o render.Origin) contract.InventoryPlace {
	return contract.InventoryPlace{Source: o.Source, File: o.File, Line: o.Line, Via: o.Via, Chain: o.Chain, Partial: o.Partial}
}

// inventorySources are the sources as the inventory writes them.
func inventorySources(in []render.SourceResult) []contract.InventorySource {
	out := make([]contract.InventorySource, 0, len(in))
	for _, s := range in {
		is := contract.InventorySource{Path: s.Path, Type: string(s.Type), ValueSet: s.ValueSet, Status: string(s.Status),
			Reason: s.Reason, Objects: s.Objects, Partial: s.Partial, Chain: s.Chain, Repository: s.Repository}
		for _, f := range s.Findings {
			is.Findings = append(is.Findings, contract.InventorySourceFinding{Check: f.Check, Severity: f.Severity,
				Message: f.Message, File: f.File(), Line: f.Line(), Source: f.Source})
		}
		out = append(out, is)
	}
	return out
}

// behaviorJSON is the effective behavior as Kubernetes writes it; nil when
// the HPA sets none.
func behaviorJSON(b *autoscalingv2.HorizontalPodAutoscalerBehavior) json.RawMessage {
	if b == nil {
		return nil
	}
	out, err := json.Marshal(b)
	if err != nil {
		return nil // an autoscaling/v2 behavior always marshals
	}
	return out
}

func newListOutput(res *render.Result, inv *analyze.Inventory) listOutput {
	out := listOutput{SchemaVersion: contract.InventorySchemaVersion, Autoscalers: []contract.InventoryAutoscaler{},
		Skipped: []contract.InventorySkipped{}, Sources: inventorySources(res.Sources), Findings: []contract.InventoryFinding{}}
	for _, a := range inv.Autoscalers {
		la := contract.InventoryAutoscaler{
			ID: a.ID, Kind: a.Kind, APIVersion: a.APIVersion, Name: a.Name, Namespace: a.Namespace, HPAName: a.HPAName,
			Source: placeOf(a.Origin),
			Target: contract.InventoryTarget{Kind: a.Target.Kind, Name: a.Target.Name, Found: a.Target.Found, Replicas: a.Target.Replicas,
				CPURequestMilli: a.Target.CPURequestMilli, CPULimitMilli: a.Target.CPULimitMilli,
				MemoryRequestBytes: a.Target.MemoryRequestBytes, MemoryLimitBytes: a.Target.MemoryLimitBytes,
				Containers: len(a.Target.Containers), File: a.Target.Origin.File, Line: a.Target.Origin.Line},
			Signal: string(a.Signal), SignalFrom: a.Assumptions.Signal.From, Unpriced: a.Unpriced,
			MinReplicas: a.Floor(), MaxReplicas: a.HPA.MaxReplicas, KEDA: rules.KEDAOf(&a),
			Behavior: behaviorJSON(a.HPA.Behavior), Ignores: a.Ignores,
			Metrics: []contract.InventoryMetric{}, Assumptions: assumptionRows(a.Assumptions), Findings: []contract.InventoryFinding{},
		}
		for _, m := range a.Metrics {
			lm := contract.InventoryMetric{Type: string(m.Type), Name: m.Name, Container: m.Container, TargetType: string(m.TargetType),
				Target: m.Target, Signal: string(m.Signal), Reason: m.Reason, ReplicaCap: m.ReplicaCap}
			if m.Trigger != nil {
				lm.Trigger = m.Trigger.Type
			}
			la.Metrics = append(la.Metrics, lm)
		}
		for _, f := range a.Findings {
			la.Findings = append(la.Findings, inventoryFinding(f))
		}
		out.Autoscalers = append(out.Autoscalers, la)
	}
	for _, s := range inv.Skipped {
		out.Skipped = append(out.Skipped, contract.InventorySkipped{Kind: s.Kind, Name: s.Name, Namespace: s.Namespace,
			Source: placeOf(s.Origin), Reason: s.Reason})
	}
	for _, f := range res.Findings {
		out.Findings = append(out.Findings, inventoryFinding(f))
	}
	for _, f := range inv.Findings {
		out.Findings = append(out.Findings, inventoryFinding(f))
	}
	return out
}

// assumptionRows flattens the assumptions in a fixed order.
func assumptionRows(a analyze.Assumptions) []contract.InventoryAssumption {
	var rows []contract.InventoryAssumption
	add := func(key string, value any, text, from string, where *render.Origin) {
		r := contract.InventoryAssumption{Key: key, Value: value, Text: text, From: from}
		if where != nil {
			r.File, r.Line = where.File, where.Line
		}
		rows = append(rows, r)
	}
	dur := func(key string, v analyze.Assumed[time.Duration], zero string) {
		text := fmtDuration(v.Value)
		if v.Value == 0 && zero != "" {
			text = zero
		}
		add(key+"Seconds", v.Value.Seconds(), text, v.From, v.Where)
	}
	num := func(key string, v analyze.Assumed[float64], text string) {
		add(key, v.Value, text, v.From, v.Where)
	}
	dur("deadTime", a.DeadTime, "")
	num("podRate", a.PodRate, fmtFloat(a.PodRate.Value)+"/s")
	dur("latencyTarget", a.LatencyTarget, "none")
	var ks []string
	for _, k := range a.Overload.Value {
		ks = append(ks, fmtFloat(k)+"x")
	}
	add("overload", a.Overload.Value, strings.Join(ks, ","), a.Overload.From, a.Overload.Where)
	demand := fmtFloat(a.Demand.Value) + "/s"
	if a.Demand.Value == 0 {
		demand = "baseline pods at target"
	}
	num("demand", a.Demand, demand)
	num("step", a.Step, fmtFloat(a.Step.Value)+"x")
	dur("metricWindow", a.MetricWindow, "")
	num("saturatedEfficiency", a.SaturatedEfficiency, fmtFloat(a.SaturatedEfficiency.Value))
	add("signal", string(a.Signal.Value), string(a.Signal.Value), a.Signal.From, a.Signal.Where)
	dur("syncPeriod", a.SyncPeriod, "")
	num("tolerance", a.Tolerance, fmtFloat(a.Tolerance.Value))
	dur("downscaleStabilization", a.DownscaleStabilization, "0s")
	dur("cpuInitializationPeriod", a.CPUInitializationPeriod, "0s")
	dur("initialReadinessDelay", a.InitialReadinessDelay, "0s")
	add("kubeVersion", a.KubeVersion.Value, a.KubeVersion.Value, a.KubeVersion.From, a.KubeVersion.Where)
	measured := map[string]*config.Measurement{"deadTimeSeconds": a.DeadTime.Measured, "podRate": a.PodRate.Measured,
		"demand": a.Demand.Measured, "overload": a.Overload.Measured}
	for i := range rows {
		rows[i].Measured = rules.MeasuredOf(measured[rows[i].Key])
	}
	return rows
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// fmtDuration prints a duration as the ledger does (1m30s, 5m, 45s).
func fmtDuration(d time.Duration) string { return rules.FormatDuration(d.Seconds()) }

// inventoryFinding is a finding as the inventory writes it: flat, with its
// file and line beside the message.
func inventoryFinding(f check.Finding) contract.InventoryFinding {
	return contract.InventoryFinding{Check: f.Check, Severity: f.Severity, Message: f.Message,
		Remediation: f.Remediation, File: f.File(), Line: f.Line()}
}
