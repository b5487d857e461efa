package diff

import (
	"math"
	"strings"
)

// Worsening is one autoscaler whose bill grew past a team's threshold:
// the figure that grew the most, relatively.
type Worsening struct {
	ID     string
	Figure Figure
	// Percent is the growth, after/before − 1 in percent; +Inf when a
	// figure that was 0 grew, or one that was finite became "never".
	Percent float64
}

// BillsWorse lists the autoscalers present on both sides whose bill grew by
// more than percent (each with its largest growth), in the Result's order.
// A bill is what the ledger charges: a Size bill's rounds, time to
// capacity, peak wait, drain time and peak pods at each overload, and a
// Time bill's required standing delay and the top of its replica band.
// Verdicts are the other gate (newly failing); this one catches a bill
// that doubles without crossing a latency target.
func BillsWorse(r Result, percent float64) []Worsening {
	var out []Worsening
	for _, c := range r.Changes {
		if c.Status != StatusChanged {
			continue
		}
		var worst *Worsening
		for _, f := range c.Figures {
			if !isCost(f.Key) {
				continue
			}
			p, ok := growth(f.Before, f.After)
			if ok && p > percent && (worst == nil || p > worst.Percent) {
				worst = &Worsening{ID: c.ID, Figure: f, Percent: p}
			}
		}
		if worst != nil {
			out = append(out, *worst)
		}
	}
	return out
}

// costSuffixes are the figures of an overload that a larger value makes
// more expensive.
var costSuffixes = []string{"].rounds", "].timeToCapacitySeconds", "].peakWaitSeconds", "].drainedAtSeconds", "].peakReplicas"}

func isCost(key string) bool {
	if key == "time.requiredStandingDelaySeconds" || key == "time.replicasMax" {
		return true
	}
	if !strings.HasPrefix(key, "size.overload[") {
		return false
	}
	for _, s := range costSuffixes {
		if strings.HasSuffix(key, s) {
			return true
		}
	}
	return false
}

// growth is how much a cost grew, in percent; ok is false when it did not
// grow or the two sides cannot be compared. "never" after a number is an
// unbounded growth (rounds that never come); a number after "never" is not
// growth.
func growth(before, after any) (percent float64, ok bool) {
	b, bok := before.(float64)
	if !bok {
		return 0, false
	}
	switch a := after.(type) {
	case float64:
		switch {
		case a <= b || sameFloat(a, b):
			return 0, false
		case b <= 0:
			return math.Inf(1), true
		}
		return (a/b - 1) * 100, true
	case string:
		return math.Inf(1), a == "never"
	}
	return 0, false
}
