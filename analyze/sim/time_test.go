package sim

import (
	"math"
	"testing"
	"time"

	"github.com/capreport/capreport/analyze/hpa"
)

// timeKit is the cluster kit of "The Delay a Window Demands": demand steps
// from 50 to 200 messages/s, each pod consumes 10/s after a 90-second dead
// time, ceiling 100 pods. standing is D = T/c in seconds.
func timeKit(standing float64, window time.Duration) TimeOptions {
	cfg := hpa.DefaultConfig()
	cfg.DownscaleStabilizationWindow = window
	return TimeOptions{
		Controller:   Controller{Config: cfg, MaxReplicas: 100},
		PodRate:      10,
		Threshold:    standing * 10,
		DeadTime:     90,
		DemandBefore: 50,
		DemandAfter:  200,
	}
}

// timeOpening is the essay's opening: 500 → 2,000 messages/s, ceiling 2,000.
func timeOpening(standing float64, window time.Duration) TimeOptions {
	o := timeKit(standing, window)
	o.DemandBefore, o.DemandAfter = 500, 2000
	o.Controller.MaxReplicas = 2000
	return o
}

func mustTime(t *testing.T, o TimeOptions) *TimeResult {
	t.Helper()
	r, err := SimulateTime(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestTimeKitOpeningMinutes(t *testing.T) {
	o := timeKit(1, 5*time.Minute)
	o.Series, o.SeriesFrom = true, 0
	r := mustTime(t, o)
	s := r.Series
	at := func(sec int) (int32, float64) { return s.Replicas[sec], s.Backlog[sec] }

	if _, b := at(30); b != 4700 {
		t.Errorf("backlog at 30 s = %v, essay: 4,700", b)
	}
	if n, _ := at(0); n != 10 {
		t.Errorf("count after the first sync %d, essay: 10", n)
	}
	if n, _ := at(15); n != 20 {
		t.Errorf("count after the second sync %d, essay: 20", n)
	}
	if n, _ := at(60); n < 80 {
		t.Errorf("count at 60 s %d, essay: 80 ordered by 60 s", n)
	}
	if n, _ := at(90); n != 100 {
		t.Errorf("count at 90 s %d, essay: ceiling 100 by 90 s", n)
	}
	for _, c := range []struct {
		sec  int
		want float64
	}{{120, 14850}, {150, 2250}, {180, 0}} {
		if _, b := at(c.sec); b != c.want {
			t.Errorf("backlog at %d s = %v, essay: %v", c.sec, b, c.want)
		}
	}
	if got := cyclePeriods(s, 14*3600); len(got) == 0 {
		t.Errorf("no cycle found in the last hours")
	} else {
		for _, p := range got {
			if p != 510 {
				t.Errorf("cycle periods %v, essay: every 510 s", got)
				break
			}
		}
	}
}

// cyclePeriods returns the seconds between successive climbs from the
// run's floor, from second `from` on.
func cyclePeriods(s *Series, from int) []int {
	floor := s.Replicas[from]
	for _, n := range s.Replicas[from:] {
		floor = min(floor, n)
	}
	var starts []int
	for i := from + 1; i < len(s.Replicas); i++ {
		if s.Replicas[i-1] == floor && s.Replicas[i] > floor {
			starts = append(starts, i)
		}
	}
	var periods []int
	for i := 1; i < len(starts); i++ {
		periods = append(periods, starts[i]-starts[i-1])
	}
	return periods
}

func TestTimeKitBands(t *testing.T) {
	for _, c := range []struct {
		name     string
		standing float64
		window   time.Duration
		lo, hi   int32
		hunts    bool
	}{
		{"F1 D=60s hunts", 60, 5 * time.Minute, 6, 35, true},
		{"F1 D=150s rests", 150, 5 * time.Minute, 19, 21, false},
		{"F2 D=60s one-minute window rests", 60, time.Minute, 19, 22, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := mustTime(t, timeKit(c.standing, c.window))
			if r.Min != c.lo || r.Max != c.hi || r.Hunts != c.hunts {
				t.Errorf("last hour %d..%d hunts=%v, essay: %d..%d hunts=%v", r.Min, r.Max, r.Hunts, c.lo, c.hi, c.hunts)
			}
		})
	}
	t.Run("F3 default threshold hunts with and without the window", func(t *testing.T) {
		for _, w := range []time.Duration{0, 5 * time.Minute} {
			r := mustTime(t, timeKit(1, w))
			if !r.Hunts || r.Min != 1 || r.Max != 100 {
				t.Errorf("window %v: %d..%d hunts=%v, essay: 1..100, hunts", w, r.Min, r.Max, r.Hunts)
			}
		}
	})
}

func TestTimeOpening(t *testing.T) {
	r := mustTime(t, timeOpening(1, 5*time.Minute))
	if r.P5 != 8 || r.P95 != 2000 || math.Round(r.Mean) != 1551 {
		t.Errorf("p5 %v p95 %v mean %v, essay: 8, 2,000, 1,551", r.P5, r.P95, r.Mean)
	}
	if !r.Hunts {
		t.Error("the opening must hunt")
	}
	// The essay also quotes a mean of 936 without the window and a band of
	// 40..503 at D = 40 s with it; this model gives 953 and 41..503 (the
	// figures model.md pins all match). Only the shape is asserted here.
	t.Run("no window still hunts", func(t *testing.T) {
		r := mustTime(t, timeOpening(1, 0))
		if r.Min != 1 || r.Max != 2000 || !r.Hunts || r.Mean > 0.6*2000 {
			t.Errorf("%d..%d mean %v, essay: 1..2,000, mean 936", r.Min, r.Max, r.Mean)
		}
	})
	t.Run("D=40s with the window hunts", func(t *testing.T) {
		r := mustTime(t, timeOpening(40, 5*time.Minute))
		if r.Max != 503 || !r.Hunts {
			t.Errorf("%d..%d, essay: 40..503", r.Min, r.Max)
		}
	})
	t.Run("D=40s without the window rests", func(t *testing.T) {
		r := mustTime(t, timeOpening(40, 0))
		if r.Min != 186 || r.Max != 234 || r.Hunts {
			t.Errorf("%d..%d hunts=%v, essay: 186..234, rests", r.Min, r.Max, r.Hunts)
		}
	})
}

func TestReplicaStatsLinearPercentiles(t *testing.T) {
	lo, hi, mean, p5, p95 := replicaStats([]int32{10, 1, 4, 7, 2, 3, 9, 5, 6, 8, 0})
	// numpy.percentile([0..10], 5) = 0.5, 95 → 9.5.
	if lo != 0 || hi != 10 || mean != 5 || p5 != 0.5 || p95 != 9.5 {
		t.Errorf("stats %d %d %v %v %v", lo, hi, mean, p5, p95)
	}
}

func TestTimeRejectsBadInput(t *testing.T) {
	for name, mutate := range map[string]func(*TimeOptions){
		"zero rate":      func(o *TimeOptions) { o.PodRate = 0 },
		"zero threshold": func(o *TimeOptions) { o.Threshold = 0 },
		"zero dead time": func(o *TimeOptions) { o.DeadTime = 0 },
		"no demand":      func(o *TimeOptions) { o.DemandAfter = 0 },
		"long stats":     func(o *TimeOptions) { o.Duration, o.StatsWindow = 60, 3600 },
	} {
		o := timeKit(1, 5*time.Minute)
		mutate(&o)
		if _, err := SimulateTime(o); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func BenchmarkTimeTwentyHours(b *testing.B) {
	o := timeOpening(1, 5*time.Minute)
	for b.Loop() {
		if _, err := SimulateTime(o); err != nil {
			b.Fatal(err)
		}
	}
}
