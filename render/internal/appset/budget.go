package appset

import (
	"reflect"
	"sync/atomic"
)

// Bounds of one Expand call. The controller has none of these; they keep a hostile ApplicationSet (or
// repository) from costing more than a moment. A unit of work is roughly one small step: a parameter set
// copied, a value visited, a few dozen bytes rendered.
const (
	workBudget         = 1 << 22  // units of work per Expand call: about a second at worst
	maxAppBytes        = 1 << 20  // rendered bytes per Application (and per generator interpolation)
	maxStringBytes     = 1 << 20  // bytes of one string a template function returns
	maxValueSize       = 4 << 20  // measure() of one value a template function returns or serialises
	maxExecAlloc       = 16 << 20 // bytes template functions may return during one template execution
	maxTemplateCalls   = 1000     // {{template}} invocations during one execution
	maxParamSize       = 4 << 20  // measure() of one parameter set read from a git file
	maxReadBytes       = 16 << 20 // bytes the git files generator reads per Expand
	maxInputNodes      = 1 << 22  // values in the ApplicationSet's generators and template
	maxNesting         = 200      // depth of any value
	maxCachedTemplates = 4096     // parsed templates kept per Expand
	maxListLen         = 1 << 20  // elements sprig's until, untilStep and seq may build
	rangeCost          = 4        // units per {{range}} iteration
	tickCost           = 8        // units per template execution or {{template}} call
	callCost           = 2        // units per template function call
	yamlBytesPerUnit   = 4        // bytes of YAML parsed or printed per unit
)

// RunWork is the work budget every Expand call of one run shares: the per-call budget alone let 2,000
// ApplicationSets spend 100 s. Once it is spent, the ApplicationSet expanding fails with a problem that
// says so, and so does every later one; the rest of the run goes on.
type RunWork struct{ left atomic.Int64 }

// RunWorkBudget is a run's units of work for all its ApplicationSets: sixteen calls' worth, a few
// seconds at worst.
const RunWorkBudget = 16 * workBudget

// NewRunWork is a run's budget of units.
func NewRunWork(units int64) *RunWork {
	w := &RunWork{}
	w.left.Store(units)
	return w
}

// runFlush is how much work an Expand call spends before it charges the run's budget, so that calls on
// several goroutines do not meet on one counter at every step.
const runFlush = 1 << 14

// measure sizes v as serialising it would: one unit per value plus its depth (pretty printers indent by
// depth), plus the bytes of strings and keys. It stops as soon as the size passes limit or the nesting
// passes maxNesting, which is also how a cycle (made with sprig's set or merge) shows: ok is false. visited
// is the number of values walked, which is the cost of the measurement.
func measure(v any, limit int) (size, visited int, ok bool) {
	m := measurer{limit: limit}
	ok = m.walk(v, 0)
	return m.size, m.visited, ok
}

type measurer struct{ limit, size, visited int }

func (m *measurer) add(n int) bool {
	m.size += n
	m.visited++
	return m.size <= m.limit
}

func (m *measurer) walk(v any, depth int) bool {
	if depth > maxNesting {
		return false
	}
	// The containers template values are made of, walked without reflection; a container costs one
	// value plus its elements, which sit one level deeper.
	switch t := v.(type) {
	case nil, bool, float64, int, int64:
		return m.add(1 + depth)
	case string:
		return m.add(1 + depth + len(t))
	case map[string]any:
		return m.add(1+depth) && m.walkMap(t, depth+1)
	case []any:
		return m.add(1+depth) && m.walkSlice(t, depth+1)
	case []string:
		return m.add(1+depth) && m.addStrings(t, depth+1)
	case map[string]string:
		return m.add(1+depth) && m.addStringMap(t, depth+1)
	}
	return m.walkReflect(reflect.ValueOf(v), depth)
}

// walkMap walks the values of a map at depth; each key costs its bytes.
func (m *measurer) walkMap(t map[string]any, depth int) bool {
	for k, x := range t {
		if !m.add(len(k)) || !m.walk(x, depth) {
			return false
		}
	}
	return true
}

// walkSlice walks the elements of a slice at depth.
func (m *measurer) walkSlice(t []any, depth int) bool {
	for _, x := range t {
		if !m.walk(x, depth) {
			return false
		}
	}
	return true
}

// addStrings adds the elements of a []string at depth, each one value plus its bytes.
func (m *measurer) addStrings(t []string, depth int) bool {
	for _, s := range t {
		if !m.add(1 + depth + len(s)) {
			return false
		}
	}
	return true
}

// addStringMap adds the entries of a map[string]string at depth, each one value plus the bytes of its key
// and value.
func (m *measurer) addStringMap(t map[string]string, depth int) bool {
	for k, s := range t {
		if !m.add(1 + depth + len(k) + len(s)) {
			return false
		}
	}
	return true
}

// walkReflect covers the other containers sprig returns ([]int, [][]interface{}, ...). Pointers and
// structs (a semver.Version, say) count as one value: sprig never returns a large one.
func (m *measurer) walkReflect(v reflect.Value, depth int) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		if !m.add(1 + depth) {
			return false
		}
		for i := 0; i < v.Len(); i++ {
			if !m.walkElem(v.Index(i), depth+1) {
				return false
			}
		}
		return true
	case reflect.Map:
		if !m.add(1 + depth) {
			return false
		}
		it := v.MapRange()
		for it.Next() {
			if !m.walkElem(it.Key(), depth+1) || !m.walkElem(it.Value(), depth+1) {
				return false
			}
		}
		return true
	case reflect.String:
		return m.add(1 + depth + v.Len())
	}
	return m.add(1 + depth)
}

func (m *measurer) walkElem(v reflect.Value, depth int) bool {
	if !v.IsValid() || !v.CanInterface() {
		return m.add(1 + depth)
	}
	return m.walk(v.Interface(), depth)
}

// shallowLen is the number of elements of a container, or 1.
func shallowLen(v any) int {
	switch t := v.(type) {
	case string:
		return len(t)
	case map[string]any:
		return len(t)
	case []any:
		return len(t)
	case nil:
		return 1
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.String:
		return rv.Len()
	}
	return 1
}
