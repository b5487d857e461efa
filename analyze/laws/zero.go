package laws

import "math"

// The scale-from-zero law. A KEDA ScaledObject whose floor is 0 (no
// minReplicaCount, or 0; or idleReplicaCount 0) has no consumer after an
// idle period, and its HPA does nothing at zero replicas: only KEDA's
// operator takes the count from 0 to 1 (keda.md §0, §1.2). It does so in
// its polling loop (pkg/scaling/scale_handler.go, startScaleLoop), which
// runs checkScalers every pollingInterval P, the timer started before each
// check, and reads every trigger live (the cache of useCachedMetrics feeds
// only the HPA). A poll that finds a trigger active (metric strictly above
// its activation threshold A) while the target has 0 replicas sets it to
// max(1, minReplicaCount) (pkg/scaling/executor/scale_scaledobjects.go,
// RequestScale and scaleFromZeroOrIdle). That pod serves its first message
// a dead time τ after it is ordered. So the first message after an idle
// period waits, at worst,
//
//	W₀ = ⌊A⌋/λ + P + τ
//
// ⌊A⌋/λ for the ⌊A⌋+1 messages that lift a count above A to arrive at the
// demand λ (none with the default A = 0), P when the last of them arrives
// just after a poll, and τ for the pod. Assumptions: messages arrive
// evenly at λ from the first one; the poll itself, the scale update and
// the pod's creation take no time beyond τ (which counts from the order);
// nothing else activates the object meanwhile (another trigger, a cron
// window, force-activation). The wait is a supremum: a message that
// arrives just before a poll waits ⌊A⌋/λ + τ, and one that finds the
// consumer still up (within cooldownPeriod of the last active poll) waits
// nothing extra.

// ActivationMessages is how many messages a count must reach to be
// strictly above an activation threshold of a messages: ⌊a⌋ + 1 (1 with
// the default 0). A negative threshold needs none (the trigger is always
// active).
func ActivationMessages(activation float64) float64 {
	if activation < 0 {
		return 0
	}
	return math.Floor(activation) + 1
}

// ActivationWait is the seconds from the first message to the one that
// lifts the count above the activation threshold, at demand messages per
// second arriving evenly: (ActivationMessages − 1)/demand. It is 0 at the
// default threshold, and +Inf when more messages are needed and none come.
func ActivationWait(activation, demand float64) float64 {
	n := ActivationMessages(activation)
	if n <= 1 {
		return 0
	}
	if !(demand > 0) {
		return math.Inf(1)
	}
	return (n - 1) / demand
}

// FirstMessageWait is W₀, the longest the first message after an idle
// period waits for a ScaledObject that scaled to zero: the activation wait,
// one polling interval and the dead time, all in seconds.
func FirstMessageWait(pollingInterval, deadTime, activation, demand float64) float64 {
	return ActivationWait(activation, demand) + pollingInterval + deadTime
}

// IdleAfter is the quiet spell after which the target has certainly been
// scaled to zero: the cooldown counts from the last poll that found a
// trigger active, at most one polling interval before the queue emptied,
// and the scale-in happens at the first poll after the cooldown, at most
// one polling interval later; so a spell of cooldownPeriod + P ends at
// zero replicas whatever the phase of the polls (one of a little over
// cooldownPeriod − P may already).
func IdleAfter(cooldownPeriod, pollingInterval float64) float64 {
	return cooldownPeriod + pollingInterval
}
