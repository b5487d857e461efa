package gitops

import (
	"encoding/json"
	"sync"

	"github.com/capreport/capreport/render/internal/source"
)

// renderMemo holds the run's delivered builds by what they build: the
// ones prefetch made and every one an expansion made. Many GitOps objects
// may deliver one build (a hundred Applications of one path and
// destination, Flux Kustomizations that differ in name or only in what
// postBuild substitutes afterwards): the controllers build it once for
// each, capreport once for the run. Each expansion gets its own copy,
// since it stamps chains and substitutes variables into the objects it
// owns, labelled with its own source name.
type renderMemo struct {
	mu   sync.Mutex
	outs map[string]source.Out
}

// specKey is what a build depends on: the spec without its name, which
// only labels the result.
func specKey(spec source.Spec) (string, bool) {
	spec.Name = ""
	data, err := json.Marshal(spec) // sorted map keys: one text per spec
	return string(data), err == nil
}

// take returns a copy of the build of spec, if the run made it.
func (m *renderMemo) take(spec source.Spec) (source.Out, bool) {
	if m == nil || spec.Delivery == nil {
		return source.Out{}, false
	}
	key, ok := specKey(spec)
	if !ok {
		return source.Out{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out, ok := m.outs[key]
	if !ok {
		return source.Out{}, false
	}
	return out.Clone().Relabel(spec), true
}

// keep remembers a delivered build an expansion made (a copy: the caller
// goes on to own out).
func (m *renderMemo) keep(spec source.Spec, out source.Out) {
	if m == nil || spec.Delivery == nil {
		return
	}
	if key, ok := specKey(spec); ok {
		out.Spec = spec
		m.put(key, out.Clone())
	}
}

func (m *renderMemo) put(key string, out source.Out) {
	m.mu.Lock()
	m.outs[key] = out
	m.mu.Unlock()
}
