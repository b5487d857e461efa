package hpa

import (
	"slices"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// recs builds recommendations from value@age pairs.
func recs(pairs ...any) []Recommendation {
	var out []Recommendation
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, Recommendation{Replicas: int32(pairs[i].(int)), At: testNow.Add(-pairs[i+1].(time.Duration))})
	}
	return out
}

func values(rs []Recommendation) []int32 {
	out := make([]int32, len(rs))
	for i, r := range rs {
		out[i] = r.Replicas
	}
	return out
}

// legacyStabilizeCase is one TestNormalizeDesiredReplicas row (§14.5).
type legacyStabilizeCase struct {
	name          string
	recs          []Recommendation
	prenormalized int32
	want          int32
	wantStored    []int32
}

func (c legacyStabilizeCase) run(t *testing.T) {
	t.Helper()
	got, stored := StabilizeRecommendation(c.recs, c.prenormalized, 5*time.Minute, testNow)
	if got != c.want || !slices.Equal(values(stored), c.wantStored) {
		t.Errorf("got %d, stored %v; want %d, stored %v", got, values(stored), c.want, c.wantStored)
	}
}

func TestNormalizeDesiredReplicas(t *testing.T) {
	m := time.Minute
	cases := []legacyStabilizeCase{
		{name: "EmptyLog", prenormalized: 5, want: 5, wantStored: []int32{5}},
		{name: "StabilizeDown", recs: recs(4, 2*m, 5, 1*m), prenormalized: 3, want: 5, wantStored: []int32{4, 5, 3}},
		{name: "NoStabilizeUp", recs: recs(1, 2*m, 2, 1*m), prenormalized: 3, want: 3, wantStored: []int32{1, 2, 3}},
		{name: "ExpiredOverwritesLast", recs: recs(10, 10*m, 9, 9*m), prenormalized: 3, want: 3, wantStored: []int32{10, 3}},
		{name: "ExpiredOverwritesLastOld", recs: recs(10, 10*m, 4, 1*m, 5, 2*m, 9, 9*m), prenormalized: 3, want: 5, wantStored: []int32{10, 4, 5, 3}},
		// model.md: the entry exactly at now−W still holds the count up
		{name: "EntryAtCutoffCounts", recs: recs(9, 5*m), prenormalized: 3, want: 9, wantStored: []int32{9, 3}},
		{name: "EntryJustPastCutoffExpires", recs: recs(9, 5*m+time.Second), prenormalized: 3, want: 3, wantStored: []int32{3}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

func TestConvertDesiredReplicasWithRules(t *testing.T) {
	cases := []struct {
		name                       string
		current, desired, min, max int32
		want                       int32
		wantReason                 string
	}{
		{"WithinRange", 5, 7, 3, 8, 7, ReasonWithinRange},
		{"TooFew", 3, 1, 2, 8, 2, ReasonTooFew},
		{"ZeroMin", 1, 0, 0, 10, 0, ReasonWithinRange},
		{"TooMany", 20, 1000, 1, 10, 10, ReasonTooMany},
		{"ScaleUpLimit", 3, 1000, 1, 2000, 6, ReasonScaleUpLimit},
		{"ScaleUpLimitFloorOf4", 1, 1000, 1, 2000, 4, ReasonScaleUpLimit},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, reason := ConvertDesiredReplicasWithRules(c.current, c.desired, c.min, c.max)
			if got != c.want || reason != c.wantReason {
				t.Errorf("got (%d, %s), want (%d, %s)", got, reason, c.want, c.wantReason)
			}
		})
	}
}

func windowRules(seconds int32) *autoscalingv2.HPAScalingRules {
	return &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: &seconds}
}

// behaviorStabilizeCase is one TestNormalizeDesiredReplicasWithBehavior row
// (§14.6). wantStored nil: not asserted upstream.
type behaviorStabilizeCase struct {
	name             string
	recs             []Recommendation
	current, desired int32
	upWindow         int32
	downWindow       int32
	want             int32
	wantStored       []int32
}

func (c behaviorStabilizeCase) run(t *testing.T) {
	t.Helper()
	got, _, stored := StabilizeRecommendationWithBehaviors(c.recs, c.current, c.desired, windowRules(c.upWindow), windowRules(c.downWindow), testNow)
	if got != c.want {
		t.Errorf("got %d, want %d", got, c.want)
	}
	if c.wantStored != nil && !slices.Equal(values(stored), c.wantStored) {
		t.Errorf("stored %v, want %v", values(stored), c.wantStored)
	}
}

func TestNormalizeDesiredReplicasWithBehavior(t *testing.T) {
	m := time.Minute
	cases := []behaviorStabilizeCase{
		{name: "EmptyLog", current: 100, desired: 5, want: 5, wantStored: []int32{5}},
		{name: "StabilizeDown", recs: recs(4, 2*m, 5, 1*m), current: 100, desired: 3, downWindow: 180, want: 5, wantStored: []int32{4, 5, 3}},
		{name: "StabilizeUp", recs: recs(4, 2*m, 5, 1*m), current: 1, desired: 7, upWindow: 300, want: 4, wantStored: []int32{4, 5, 7}},
		{name: "NoStabilizeDownWithUpWindow", recs: recs(1, 2*m, 2, 1*m), current: 100, desired: 3, upWindow: 300, want: 3, wantStored: []int32{1, 2, 3}},
		{name: "NoStabilizeUpWithDownWindow", recs: recs(4, 2*m, 5, 1*m), current: 1, desired: 3, downWindow: 300, want: 3, wantStored: []int32{4, 5, 3}},
		{name: "ExpiredOverwrittenDown", recs: recs(10, 10*m, 9, 9*m), current: 100, desired: 3, want: 3, wantStored: []int32{10, 3}},
		{name: "ExpiredOverwrittenUp", recs: recs(10, 10*m, 9, 9*m), current: 1, desired: 100, want: 100, wantStored: []int32{10, 100}},
		{name: "DownOverwritesLastOld", recs: recs(10, 10*m, 4, 1*m, 5, 2*m, 9, 9*m), current: 100, desired: 3, downWindow: 180, want: 5, wantStored: []int32{10, 4, 5, 3}},
		{name: "UpOverwritesOnlyOld", recs: recs(10, 100*m, 6, 1*m, 5, 2*m, 9, 3*m), current: 1, desired: 100, upWindow: 300, want: 5, wantStored: []int32{100, 6, 5, 9}},
		{name: "HistoryStraddlesCurrentDown", recs: recs(2, 100*m, 3, 3*m), current: 2, desired: 1, upWindow: 300, downWindow: 300, want: 2},
		{name: "HistoryStraddlesCurrentUp", recs: recs(2, 100*m, 1, 3*m), current: 2, desired: 3, upWindow: 300, downWindow: 300, want: 2},
		// §12.2: an entry exactly at the cutoff neither counts nor expires
		{name: "EntryAtCutoffExcluded", recs: recs(9, 5*m), current: 10, desired: 3, downWindow: 300, want: 3, wantStored: []int32{9, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}
