package rules

import (
	"fmt"
	"strconv"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/analyze/laws"
	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/units"
)

// KEDAOf is what the report and the inventory carry of a ScaledObject's
// own settings; nil for an HPA.
func KEDAOf(a *analyze.Autoscaler) *contract.KEDA {
	k := a.KEDA
	if k == nil {
		return nil
	}
	out := &contract.KEDA{
		MinReplicaCount:        k.MinReplicas(),
		MinReplicaCountFrom:    analyze.FromDefault,
		IdleReplicaCount:       k.IdleReplicaCount,
		HPAMinReplicas:         a.HPAFloor(),
		PollingIntervalSeconds: k.PollingInterval.Seconds(),
		CooldownPeriodSeconds:  k.CooldownPeriod.Seconds(),
		ScalesToZero:           k.ScalesToZero(),
		Activations:            []contract.KEDAActivation{},
	}
	if k.MinReplicaCount != nil {
		out.MinReplicaCountFrom = "manifest"
	}
	for _, t := range k.Triggers {
		if t.Type == "cpu" || t.Type == "memory" {
			continue // KEDA reads only External metrics for activity
		}
		out.Activations = append(out.Activations, contract.KEDAActivation{Trigger: t.Index, Type: t.Type, Name: t.Name,
			Param: t.ActivationParam, Threshold: float64(t.ActivationMilli) / 1000})
	}
	if k.Formula != "" {
		v := float64(k.ActivationTargetMilli) / 1000
		out.ActivationTarget = &v
	}
	return out
}

// scaleFromZeroOf prices the first message after an idle period on the
// backlog metric m (laws.FirstMessageWait), at the Time row's demand
// before its step; nil unless KEDA takes the target to zero replicas.
func scaleFromZeroOf(a *analyze.Autoscaler, m analyze.Metric, in inputs, demand float64) *contract.ScaleFromZero {
	k := a.KEDA
	if k == nil || !k.ScalesToZero() {
		return nil
	}
	milli, _ := k.ActivationOf(m)
	activation := float64(milli) / 1000
	poll, tau := k.PollingInterval.Seconds(), float64(in.deadTime)
	return &contract.ScaleFromZero{
		FirstMessageWaitSeconds: laws.FirstMessageWait(poll, tau, activation, demand),
		ActivationMessages:      laws.ActivationMessages(activation),
		ActivationWaitSeconds:   laws.ActivationWait(activation, demand),
		PollingIntervalSeconds:  poll,
		DeadTimeSeconds:         tau,
		IdleAfterSeconds:        laws.IdleAfter(k.CooldownPeriod.Seconds(), poll),
	}
}

// scaleFromZeroCheck holds the first message's wait after an idle period
// against the latency target. The Time row's other figures are at rest,
// with pods running; this one is what scaling to zero costs the first
// message of every busy spell.
func scaleFromZeroCheck(t *contract.TimeBill, in inputs, add func(string, string, ...any)) {
	z := t.ScaleFromZero
	if z == nil || in.latencyTarget <= 0 || z.FirstMessageWaitSeconds <= float64(in.latencyTarget) {
		return
	}
	add(check.FirstMessageWaitOverTarget, "after %s without messages KEDA has scaled the consumer to zero: the first message then waits up to %s (%s), above the %s latency target",
		units.Duration(z.IdleAfterSeconds), units.Duration(z.FirstMessageWaitSeconds), FirstMessageWaitTerms(z), units.Duration(float64(in.latencyTarget)))
}

// FirstMessageWaitTerms spells out the law's terms: "polling interval
// 30 s + dead time 1 min 30 s", with the activation wait first when
// there is one.
func FirstMessageWaitTerms(z *contract.ScaleFromZero) string {
	s := fmt.Sprintf("polling interval %s + dead time %s", units.Duration(z.PollingIntervalSeconds), units.Duration(z.DeadTimeSeconds))
	if z.ActivationWaitSeconds > 0 {
		s = fmt.Sprintf("%s for the %s messages that activate it + ", units.Duration(z.ActivationWaitSeconds),
			strconv.FormatFloat(z.ActivationMessages, 'f', -1, 64)) + s
	}
	return s
}
