// Package laws holds the closed-form laws of the ledger as pure functions of
// values: the Size row of "One Bit per Dead Time" (growth factor, rounds to
// capacity, dead band, hottest target) and the Time row of
// "The Delay a Window Demands" (standing delay, the required standing delay
// with the deployed sampling correction, the latency floor and the three
// remedies).
//
// Units: CPU limit and request in any one unit (millicores in the ledger),
// targets as fractions (0.5 for 50 %) unless a name says Percent, times in
// seconds as float64, rates in messages per second per pod, thresholds in
// messages per pod.
package laws
