package sim

// fifoWait measures, for the work that arrived in each second, how long it
// waits in a first-in first-out fluid queue. It is exact for the fluid
// model: the last unit that arrived during second i leaves when cumulative
// service reaches cumulative arrivals A(i), with service spread evenly over
// the second in which that happens. Each second is pushed once and popped
// once, so the cost is O(1) amortized per second.
type fifoWait struct {
	arrived float64 // cumulative arrivals
	served  float64 // cumulative service
	pending []arrival
	head    int
	peak    float64
	// done, if set, receives the wait of each second's arrivals once they
	// have all been served.
	done func(second int64, wait float64)
}

type arrival struct {
	second     int64
	cumulative float64 // A(second)
}

// step records second t: work that arrived and work that was served.
func (q *fifoWait) step(t int64, arrived, served float64) {
	q.arrived += arrived
	before := q.served
	q.served += served
	if arrived > 0 {
		q.pending = append(q.pending, arrival{second: t, cumulative: q.arrived})
	}
	for q.head < len(q.pending) {
		a := q.pending[q.head]
		if a.cumulative > q.served+1e-9*max(1, a.cumulative) {
			break
		}
		// Fraction of second t elapsed when the service reached A(a.second).
		frac := 1.0
		if served > 0 {
			frac = min(1, max(0, (a.cumulative-before)/served))
		}
		wait := float64(t) + frac - float64(a.second+1)
		q.peak = max(q.peak, wait)
		if q.done != nil {
			q.done(a.second, wait)
		}
		q.head++
	}
	if q.head > 1024 && q.head*2 > len(q.pending) {
		n := copy(q.pending, q.pending[q.head:])
		q.pending = q.pending[:n]
		q.head = 0
	}
}

// flush ends the run at second t: work still waiting gets its age so far,
// a lower bound on its final wait, and counts toward the peak.
func (q *fifoWait) flush(t int64) {
	for ; q.head < len(q.pending); q.head++ {
		a := q.pending[q.head]
		wait := float64(t - a.second)
		q.peak = max(q.peak, wait)
		if q.done != nil {
			q.done(a.second, wait)
		}
	}
}
