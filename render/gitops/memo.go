package gitops

import (
	"encoding/json"
	"sync"

	"github.com/capreport/capreport/render/internal/source"
)

// renderMemo holds the run's delivered builds by what they build: the
// ones prefetch started ahead and every one an expansion made. Many GitOps
// objects may deliver one build (a hundred Applications of one path and
// destination, Flux Kustomizations that differ in name or only in what
// postBuild substitutes afterwards): the controllers build it once for
// each, capreport once for the run. Each expansion gets its own copy,
// since it stamps chains and substitutes variables into the objects it
// owns, labelled with its own source name.
//
// A build started ahead runs on one of at most limit runners, in the
// order it was asked for (the walk's), while the walk goes on: an
// expansion waits only for its own build, and substitutes into one
// build's objects while the render workers make the next ones.
type renderMemo struct {
	mu      sync.Mutex
	outs    map[string]*memoEntry
	waiting []aheadBuild // builds asked for ahead, not yet begun
	runners int          // goroutines taking from waiting
	limit   int
	wg      sync.WaitGroup
	// slots bound the renders the walk makes at once, its own and those
	// run ahead together: one more than the run's parallelism would have
	// the pool start a render worker more than the machine has CPUs for.
	slots chan struct{}
}

// memoEntry is one build: out is set before done closes.
type memoEntry struct {
	done chan struct{}
	out  source.Out
}

// aheadBuild is a build asked for ahead and the entry it fills.
type aheadBuild struct {
	entry *memoEntry
	build func() source.Out
}

func newRenderMemo(limit int) *renderMemo {
	limit = max(limit, 1)
	return &renderMemo{outs: map[string]*memoEntry{}, limit: limit, slots: make(chan struct{}, limit)}
}

// specKey is what a build depends on: the spec without its name, which
// only labels the result.
func specKey(spec source.Spec) (string, bool) {
	spec.Name = ""
	data, err := json.Marshal(spec) // sorted map keys: one text per spec
	return string(data), err == nil
}

// take returns a copy of the build of spec, if the run made it or has
// started it (then once it is made).
func (m *renderMemo) take(spec source.Spec) (source.Out, bool) {
	if m == nil || spec.Delivery == nil {
		return source.Out{}, false
	}
	key, ok := specKey(spec)
	if !ok {
		return source.Out{}, false
	}
	m.mu.Lock()
	e, ok := m.outs[key]
	m.mu.Unlock()
	if !ok {
		return source.Out{}, false
	}
	<-e.done
	return e.out.Clone().Relabel(spec), true
}

// keep remembers a delivered build an expansion made (a copy: the caller
// goes on to own out).
func (m *renderMemo) keep(spec source.Spec, out source.Out) {
	if m == nil || spec.Delivery == nil {
		return
	}
	if key, ok := specKey(spec); ok {
		out.Spec = spec
		e := &memoEntry{done: make(chan struct{}), out: out.Clone()}
		close(e.done)
		m.mu.Lock()
		m.outs[key] = e
		m.mu.Unlock()
	}
}

// ahead starts the build under key, unless the run has it or has started
// it already.
func (m *renderMemo) ahead(key string, build func() source.Out) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.outs[key]; ok {
		return
	}
	e := &memoEntry{done: make(chan struct{})}
	m.outs[key] = e
	m.waiting = append(m.waiting, aheadBuild{entry: e, build: build})
	if m.runners < m.limit {
		m.runners++
		m.wg.Add(1)
		go m.run()
	}
}

// run makes the builds asked for ahead, first asked first made, until
// none waits.
func (m *renderMemo) run() {
	defer m.wg.Done()
	for {
		m.mu.Lock()
		if len(m.waiting) == 0 {
			m.runners--
			m.mu.Unlock()
			return
		}
		next := m.waiting[0]
		m.waiting = m.waiting[1:]
		m.mu.Unlock()
		next.entry.out = m.slotted(next.build)
		close(next.entry.done)
	}
}

// slotted makes one render in a slot.
func (m *renderMemo) slotted(render func() source.Out) source.Out {
	m.slots <- struct{}{}
	defer func() { <-m.slots }()
	return render()
}

// wait returns once every build started ahead is made (the walk is over:
// nothing may render after Follow returns).
func (m *renderMemo) wait() {
	m.wg.Wait()
}
