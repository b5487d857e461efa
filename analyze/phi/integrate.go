package phi

import "math"

// Options pin the numerics of the idealized loop. The defaults are the ones
// model.md fixes (and with which the published curve was computed); they are
// options only so that tests can probe how sensitive a figure is to them.
type Options struct {
	// StepsPerDeadTime is the Euler step count per dead time (300).
	StepsPerDeadTime int
	// Horizon is the length of a run, in dead times (3,000).
	Horizon float64
	// ExplodeAt is the |x| (relative to the unit step) above which a run is
	// declared hunting without waiting for the half-cycle test: growth that
	// large cannot come back, and stopping early saves most of a hunting run.
	ExplodeAt float64
}

// DefaultOptions returns the pinned numerics of model.md.
func DefaultOptions() Options {
	return Options{StepsPerDeadTime: 300, Horizon: 3000, ExplodeAt: 1e12}
}

// Result is what one integration of the idealized loop observed.
type Result struct {
	// Rests is the verdict of the half-cycle test (see Integrate).
	Rests bool
	// Exploded is true when |x| passed Options.ExplodeAt (a hunt).
	Exploded bool
	// SignChanges counts the crossings of rest over the run.
	SignChanges int
	// FirstOvershoot is the largest x above rest before x first falls back
	// below it (0 if it never crosses rest): the overshoot of Proposition 5,
	// relative to the size of the step.
	FirstOvershoot float64
	// AmplitudeRatio is the amplitude of the last complete half-cycle over
	// the one two half-cycles earlier (NaN with fewer than four sign
	// changes). At or above 1 the loop hunts.
	AmplitudeRatio float64
	// Steps is the number of Euler steps taken (fewer than the horizon when
	// the run exploded).
	Steps int
}

// Integrate runs the idealized min-max loop of model.md,
//
//	x'(t) = −a·F[x](t),  F[x](t) = min_{u∈[t−1,t]} max_{v∈[u−w,u]} x(v),
//
// with time in dead times, a = τ/D the gain, w = W/τ the window, and the
// history x ≡ −1 (an upward step from rest: the backlog starts one step
// below its new rest level).
//
// Explicit Euler: x_{n+1} = x_n − a·h·F_n, where F_n is the min-max over the
// samples up to and including x_n. Both intervals are closed, so the window
// holds round(w/h)+1 samples and the dead time 1/h+1. One sliding-max deque
// gives M_n = max x over the window; a second, sliding-min deque over M gives
// F_n. Each sample enters and leaves each deque once, so a run is O(steps).
//
// Verdict (model.md): with fewer than four sign changes the loop rests;
// otherwise it hunts if the amplitude (max |x|) of the last complete
// half-cycle between sign changes is not smaller than that of the half-cycle
// two earlier (the same sign), or if |x| explodes.
//
// The loop is positively homogeneous, so only ratios of amplitudes matter;
// the state is rescaled whenever it drifts towards underflow or overflow and
// amplitudes are kept as logarithms, so that a fast-decaying run is judged
// on its shape rather than on denormal noise.
func Integrate(a, w float64, opts Options) Result {
	opts = opts.withDefaults()
	if w < 0 || math.IsNaN(w) || math.IsNaN(a) {
		return Result{AmplitudeRatio: math.NaN()}
	}
	s := opts.StepsPerDeadTime
	h := 1 / float64(s)
	winSteps := int(math.Round(w * float64(s)))
	n := int(math.Round(opts.Horizon * float64(s)))
	ah := a * h
	logExplode := math.Log(opts.ExplodeAt)

	// The constant history collapses to one deque entry at index 0: a max
	// (min) deque keeps only the newest of equal values, and that entry
	// stays in the deque exactly as long as some history sample is still
	// inside the interval.
	st := &eulerRun{maxq: newDeque(winSteps + 2), minq: newDeque(s + 2), x: -1, neg: true,
		res: Result{AmplitudeRatio: math.NaN()}}
	st.maxq.push(0, st.x)
	st.minq.push(0, st.x)
	for i := 0; i < n; i++ {
		st.step(i, winSteps, s, ah)
		if (i+1)%s == 0 && st.endDeadTime(logExplode) {
			break
		}
	}
	return st.verdict()
}

// withDefaults fills the options left at zero (or NaN) from
// DefaultOptions.
func (o Options) withDefaults() Options {
	if o.StepsPerDeadTime <= 0 {
		o.StepsPerDeadTime = DefaultOptions().StepsPerDeadTime
	}
	if !(o.Horizon > 0) {
		o.Horizon = DefaultOptions().Horizon
	}
	if !(o.ExplodeAt > 0) {
		o.ExplodeAt = DefaultOptions().ExplodeAt
	}
	return o
}

// eulerRun is the state of one Integrate run.
type eulerRun struct {
	maxq, minq *deque
	x          float64
	res        Result
	logScale   float64 // log of the factor the state has been divided by
	neg        bool    // sign of x: x < 0
	halfMax    float64 // max |x| of the current half-cycle (scaled)
	amps       []float64
	blockMax   float64 // max |x| over the current rescaling block
}

// step takes Euler step i: the min-max F over the closed intervals, the
// update of x, and the half-cycle bookkeeping.
func (st *eulerRun) step(i, winSteps, s int, ah float64) {
	if i > 0 {
		st.maxq.pushMax(i, st.x)
	}
	st.maxq.expire(i - winSteps)
	m := st.maxq.frontVal()
	if i > 0 {
		st.minq.pushMin(i, m)
	}
	st.minq.expire(i - s)
	f := st.minq.frontVal()

	st.x -= ah * f
	st.res.Steps = i + 1

	ax := math.Abs(st.x)
	if nowNeg := st.x < 0; nowNeg != st.neg {
		// A complete half-cycle ends here, except the first rise from
		// the history, which started at the step, not at a crossing.
		if st.res.SignChanges > 0 {
			st.amps = append(st.amps, math.Log(st.halfMax)+st.logScale)
		}
		st.res.SignChanges++
		st.neg = nowNeg
		st.halfMax = 0
	}
	if ax > st.halfMax {
		st.halfMax = ax
	}
	if ax > st.blockMax {
		st.blockMax = ax
	}
}

// endDeadTime runs once per dead time: the explode check (true stops the
// run) and rescaling. The block max is the scale of the recent solution;
// dividing the whole state by it leaves the dynamics unchanged
// (homogeneity).
func (st *eulerRun) endDeadTime(logExplode float64) bool {
	if st.blockMax > 0 && math.Log(st.blockMax)+st.logScale > logExplode {
		st.res.Exploded = true
		return true
	}
	if st.blockMax > 0 && (st.blockMax < 1e-100 || st.blockMax > 1e100) {
		k := 1 / st.blockMax
		st.x *= k
		st.halfMax *= k
		st.maxq.scale(k)
		st.minq.scale(k)
		st.logScale += math.Log(st.blockMax)
	}
	st.blockMax = 0
	return false
}

// verdict judges the run from its half-cycle amplitudes.
func (st *eulerRun) verdict() Result {
	res := st.res
	// The first complete half-cycle is the first overshoot above rest; if
	// x crossed rest once and never came back, it is still running.
	switch {
	case len(st.amps) > 0:
		res.FirstOvershoot = math.Exp(st.amps[0])
	case res.SignChanges == 1:
		res.FirstOvershoot = math.Exp(math.Log(st.halfMax) + st.logScale)
	}
	if res.Exploded {
		res.Rests = false
		return res
	}
	if res.SignChanges < 4 {
		res.Rests = true
		return res
	}
	last := st.amps[len(st.amps)-1]
	prev := st.amps[len(st.amps)-3]
	res.AmplitudeRatio = math.Exp(last - prev)
	res.Rests = last < prev
	return res
}

// deque is a fixed-capacity ring of (index, value) pairs used as a monotonic
// queue: values are kept in order so that the front is the extremum of the
// live interval.
type deque struct {
	idx        []int
	val        []float64
	head, size int
}

func newDeque(capacity int) *deque {
	return &deque{idx: make([]int, capacity), val: make([]float64, capacity)}
}

func (q *deque) at(k int) int { return (q.head + k) % len(q.idx) }

func (q *deque) push(i int, v float64) {
	p := q.at(q.size)
	q.idx[p], q.val[p] = i, v
	q.size++
}

// pushMax drops every value not above v from the back, so ties keep the
// newest index (which keeps an entry alive for as long as any equal sample).
func (q *deque) pushMax(i int, v float64) {
	for q.size > 0 && q.val[q.at(q.size-1)] <= v {
		q.size--
	}
	q.push(i, v)
}

// pushMin is pushMax mirrored.
func (q *deque) pushMin(i int, v float64) {
	for q.size > 0 && q.val[q.at(q.size-1)] >= v {
		q.size--
	}
	q.push(i, v)
}

// expire drops entries older than index lo (the closed interval starts at lo).
func (q *deque) expire(lo int) {
	for q.size > 0 && q.idx[q.head] < lo {
		q.head = (q.head + 1) % len(q.idx)
		q.size--
	}
}

func (q *deque) frontVal() float64 { return q.val[q.head] }

func (q *deque) scale(k float64) {
	for j := 0; j < q.size; j++ {
		q.val[q.at(j)] *= k
	}
}
