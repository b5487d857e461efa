package laws

import (
	"math"
	"testing"
)

func TestGrowthFactor(t *testing.T) {
	for _, c := range []struct {
		name                   string
		limit, request, target float64
		want                   float64
	}{
		{"specimen: ℓ = r, 50 %", 1000, 1000, 0.5, 2},
		{"API default 80 %", 1000, 1000, 0.8, 1.25},
		{"25 % at ℓ = r", 250, 250, 0.25, 4},
		{"50 % at ℓ = 2r: same g as 25 % at ℓ = r", 2000, 1000, 0.5, 4},
	} {
		if got := GrowthFactor(c.limit, c.request, c.target); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: g = %v, want %v", c.name, got, c.want)
		}
	}
}

// roundsCase is one overload from "One Bit per Dead Time".
type roundsCase struct {
	name                      string
	k, limit, request, target float64
	n0                        int  // for RoundsBound; 0 = not checked
	want                      int  // rounds
	wantOK                    bool // false: never
}

func (c roundsCase) run(t *testing.T) {
	t.Helper()
	if c.n0 == 0 {
		got, ok := Rounds(c.k, c.limit, c.request, c.target)
		if got != c.want || ok != c.wantOK {
			t.Errorf("%s: Rounds = %d, %v; want %d, %v", c.name, got, ok, c.want, c.wantOK)
		}
		return
	}
	got, ok := RoundsBound(c.k, c.limit, c.request, c.target, c.n0)
	if got != c.want || ok != c.wantOK {
		t.Errorf("%s: RoundsBound = %d, %v; want %d, %v", c.name, got, ok, c.want, c.wantOK)
	}
}

func TestRounds(t *testing.T) {
	for _, c := range []roundsCase{
		// Ledger: "4 rounds at 50 % and 15 at the API default of 80 %"
		// ("moving from 50% to 80% ... costs eleven more rounds").
		{name: "30× at 50 %", k: 30, limit: 1, request: 1, target: 0.5, want: 4, wantOK: true},
		{name: "30× at 80 %", k: 30, limit: 1, request: 1, target: 0.8, want: 15, wantOK: true},
		// ⌈log_2(k/2)⌉ at g = 2; k = 8 lands exactly on log_2 4 = 2.
		{name: "8× at 50 %, exact power", k: 8, limit: 1, request: 1, target: 0.5, want: 2, wantOK: true},
		// "A 25 % target ... and a 50 % target with the limit at twice the
		// request ... take the same two rounds" (for the 30× overload).
		{name: "30× at 25 %", k: 30, limit: 1, request: 1, target: 0.25, want: 2, wantOK: true},
		{name: "30× at 50 %, ℓ = 2r", k: 30, limit: 2, request: 1, target: 0.5, want: 2, wantOK: true},
		// No saturation: the pods at their limit carry the load.
		{name: "2× at 50 % fits at the limit", k: 2, limit: 1, request: 1, target: 0.5, want: 0, wantOK: true},
		{name: "5× at 50 %, ℓ = 4r (kit F3)", k: 5, limit: 1000, request: 250, target: 0.5, want: 0, wantOK: true},
		// g ≤ 1: the saturated reading is the target or below.
		{name: "100 % target at ℓ = r", k: 3, limit: 1, request: 1, target: 1, want: 0, wantOK: false},
		{name: "120 % target at ℓ = r", k: 3, limit: 1, request: 1, target: 1.2, want: 0, wantOK: false},
	} {
		c.run(t)
	}
}

func TestRoundsBound(t *testing.T) {
	// The specimen: N0 = 10, ℓ = r, 50 %, "from one round at 3x to eight at
	// 300x"; 10× meets capacity at 345 s = 3 rounds of 120 s.
	for _, c := range []roundsCase{
		{name: "specimen 3×", k: 3, want: 1},
		{name: "specimen 5×", k: 5, want: 2},
		{name: "specimen 10×", k: 10, want: 3},
		{name: "specimen 30×", k: 30, want: 4},
		{name: "specimen 100×", k: 100, want: 6},
		{name: "specimen 300×", k: 300, want: 8},
	} {
		c.limit, c.request, c.target, c.n0, c.wantOK = 1, 1, 0.5, 10, true
		c.run(t)
		// "In the specimen ... both forms give the same round count."
		plain, _ := Rounds(c.k, 1, 1, 0.5)
		if plain != c.want {
			t.Errorf("%s: continuous form %d, whole-pod form %d", c.name, plain, c.want)
		}
	}
	for _, c := range []roundsCase{
		// Whole pods loosen the bound when δ = 1/(g−1) is large against N0:
		// at 80 %, δ = 4 and 10 pods: ⌈log_1.25(244/14)⌉ = 13, not 15.
		{name: "30× at 80 %, 10 pods", k: 30, limit: 1, request: 1, target: 0.8, n0: 10, want: 13, wantOK: true},
		{name: "30× at 80 %, 1000 pods", k: 30, limit: 1, request: 1, target: 0.8, n0: 1000, want: 15, wantOK: true},
		// Kit (4 pods, 50 %): 3× one round, 5× two ("one round apart").
		{name: "kit 3×", k: 3, limit: 250, request: 250, target: 0.5, n0: 4, want: 1, wantOK: true},
		{name: "kit 5×", k: 5, limit: 250, request: 250, target: 0.5, n0: 4, want: 2, wantOK: true},
		{name: "no saturation", k: 1.5, limit: 1, request: 1, target: 0.5, n0: 10, want: 0, wantOK: true},
		{name: "g = 1", k: 3, limit: 1, request: 1, target: 1, n0: 10, want: 0, wantOK: false},
	} {
		c.run(t)
	}
}

// The whole-pod form is never above the continuous one (it is the weaker,
// valid bound for few pods).
func TestRoundsBoundNeverAboveRounds(t *testing.T) {
	for _, target := range []float64{0.3, 0.5, 0.63, 0.8, 0.9} {
		for _, k := range []float64{1.5, 3, 10, 30, 100, 1000} {
			for _, n0 := range []int{1, 2, 10, 100} {
				b, _ := RoundsBound(k, 1, 1, target, n0)
				r, _ := Rounds(k, 1, 1, target)
				if b > r {
					t.Errorf("k=%g u*=%g N0=%d: whole-pod %d > continuous %d", k, target, n0, b, r)
				}
			}
		}
	}
}

func TestDeadBand(t *testing.T) {
	// Corollary 1 at ℓ = r and tolerance 0.1: the port puts the edge
	// between 90 % and 91 %; the kit's F4 runs at 93 %.
	for _, c := range []struct {
		limit, request int64
		target         int32
		tol            float64
		want           bool
	}{
		{1000, 1000, 50, 0.1, false},
		{1000, 1000, 80, 0.1, false},
		{1000, 1000, 90, 0.1, false},
		{1000, 1000, 91, 0.1, true},
		{1000, 1000, 93, 0.1, true},
		{1000, 1000, 100, 0.1, true},
		// 110/100 is exactly 1 + 0.1 in float64 and v1.34's isWithin is
		// inclusive: a hold. (The pre-v1.33 |1−r| ≤ tol form scaled here.)
		{1100, 1000, 100, 0.1, true},
		{1110, 1000, 100, 0.1, false},
		// Whole-percent truncation: 1.009 cores per core of request reads
		// 100 %, not 100.9 %.
		{1009, 1000, 91, 0.1, true},
		// A zero tolerance leaves only g ≤ 1.
		{1000, 1000, 99, 0, false},
		{1000, 1000, 100, 0, true},
		// The kit: ℓ = r = 250m at 93 %.
		{250, 250, 93, 0.1, true},
		{250, 250, 50, 0.1, false},
	} {
		if got := DeadBand(c.limit, c.request, c.target, c.tol); got != c.want {
			t.Errorf("DeadBand(%dm, %dm, %d%%, %g) = %v, want %v", c.limit, c.request, c.target, c.tol, got, c.want)
		}
	}
}

func TestHottestTarget(t *testing.T) {
	// The essay's sweep points: "at 3x and 93%", "at 10x and 63%", "at 100x
	// and 10%", each at ℓ = r; and the specimen's 50 % for 30× in 4 rounds
	// (⌊100·30^(−1/5)⌋ = 50).
	for _, c := range []struct {
		k      float64
		rounds int
		limit  float64
		want   int32
	}{
		{3, 15, 1, 93},
		{10, 4, 1, 63},
		{100, 1, 1, 10},
		{30, 4, 1, 50},
		{10, 2, 2, 92}, // ℓ = 2r doubles the bound: 2·10^(−1/3) = 0.928
		{3, 0, 1, 33},  // no round at all: capacity already there at ℓ/k
		{0, 3, 1, 0},
		{3, -1, 1, 0},
	} {
		if got := HottestTarget(c.k, c.rounds, c.limit, 1); got != c.want {
			t.Errorf("HottestTarget(%g×, %d rounds, ℓ/r=%g) = %d%%, want %d%%", c.k, c.rounds, c.limit, got, c.want)
		}
	}
	// Consistency with Proposition 2: at the hottest target the continuous
	// bound fits the budget; one percent hotter it does not.
	for _, k := range []float64{3, 10, 30, 100} {
		for r := 1; r <= 8; r++ {
			u := HottestTarget(k, r, 1, 1)
			if got, _ := Rounds(k, 1, 1, float64(u)/100); got > r {
				t.Errorf("k=%g R=%d: at %d%% Prop 2 needs %d rounds", k, r, u, got)
			}
			if got, ok := Rounds(k, 1, 1, float64(u+1)/100); ok && got <= r {
				t.Errorf("k=%g R=%d: %d%% also fits (%d rounds)", k, r, u+1, got)
			}
		}
	}
}
