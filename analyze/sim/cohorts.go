package sim

// cohort is every pod ordered at one second: the simulation keeps one entry
// per order, never one per pod.
type cohort struct {
	ordered int64 // second of the order (the pod's creation and start time)
	count   int32
}

// fleet holds the pods of one workload in order of creation.
//
// Pods only appear at the back (scale-up) and leave from the back: the
// ReplicaSet deletes pending before running and unready before ready, which
// for pods that differ only in age means newest first (a test checks this
// against internal/replicaset's DeleteFirst). Cohorts that have passed their
// dead time form a prefix of the live cohorts, tracked with a cursor. Pods
// old enough that nothing about them depends on their age any more (the
// caller decides when) are merged into one veteran count, so that the number
// of live cohorts stays bounded and every operation is O(1) amortized.
type fleet struct {
	deadTime int64
	veterans int32    // oldest pods, all serving, ages no longer tracked
	cohorts  []cohort // cohorts[head:] are live, oldest first
	head     int
	// cohorts[head:nServing] have passed their dead time.
	nServing int
	serving  int32 // pods serving, veterans included
	total    int32 // every pod that exists
}

func newFleet(deadTime int64, initial int32, orderedAt int64) *fleet {
	f := &fleet{deadTime: deadTime}
	f.add(orderedAt, initial)
	return f
}

// add orders n pods at second t.
func (f *fleet) add(t int64, n int32) {
	if n <= 0 {
		return
	}
	if last := len(f.cohorts) - 1; last >= f.head && f.cohorts[last].ordered == t {
		f.cohorts[last].count += n
	} else {
		f.cohorts = append(f.cohorts, cohort{ordered: t, count: n})
	}
	f.total += n
}

// remove deletes the n newest pods.
func (f *fleet) remove(n int32) {
	for n > 0 && len(f.cohorts) > f.head {
		last := len(f.cohorts) - 1
		c := &f.cohorts[last]
		take := min(n, c.count)
		c.count -= take
		f.total -= take
		n -= take
		if last < f.nServing {
			f.serving -= take
		}
		if c.count == 0 {
			f.cohorts = f.cohorts[:last]
			f.nServing = min(f.nServing, last)
		}
	}
	if n > 0 {
		take := min(n, f.veterans)
		f.veterans -= take
		f.serving -= take
		f.total -= take
	}
}

// scaleTo sets the replica count at second t.
func (f *fleet) scaleTo(t int64, replicas int32) {
	switch {
	case replicas > f.total:
		f.add(t, replicas-f.total)
	case replicas < f.total:
		f.remove(f.total - replicas)
	}
}

// advance moves every cohort whose dead time has passed by second t into
// the serving prefix.
func (f *fleet) advance(t int64) {
	for f.nServing < len(f.cohorts) && f.cohorts[f.nServing].ordered+f.deadTime <= t {
		f.serving += f.cohorts[f.nServing].count
		f.nServing++
	}
}

// retire merges serving cohorts ordered at or before cutoff into the
// veterans.
func (f *fleet) retire(cutoff int64) {
	for f.head < f.nServing && f.cohorts[f.head].ordered <= cutoff {
		f.veterans += f.cohorts[f.head].count
		f.head++
	}
	// Compact once the dead prefix dominates, so memory stays bounded by the
	// live cohorts; each cohort is copied O(1) times amortized.
	if f.head > 64 && f.head*2 > len(f.cohorts) {
		n := copy(f.cohorts, f.cohorts[f.head:])
		f.cohorts = f.cohorts[:n]
		f.nServing -= f.head
		f.head = 0
	}
}

// live returns the cohorts younger than the veterans, oldest first.
func (f *fleet) live() []cohort { return f.cohorts[f.head:] }
