package report

import (
	"fmt"
	stdhtml "html"
	"slices"
	"strings"

	"github.com/capreport/capreport/contract"
)

// pageFilter is the page's filter by verdict and namespace, in CSS alone:
// the page runs no script (its Content-Security-Policy forbids them), so
// each ledger row and each details block carries an empty marker span
// with classes for its verdict and namespace, two <select>s choose, and
// one rule per choice hides what does not match, through :has():
//
//	body:has(#fv option[value=v-fail]:checked) :is(tr,details):has(.m):not(:has(.v-fail)){display:none}
//
// Namespaces become classes by index (n0, n1, …), never by name, so no
// manifest text reaches a selector.
type pageFilter struct {
	verdicts   []string // in ledger order, those present
	count      map[string]int
	namespaces []string // sorted; "" is the cluster scope
	nsIndex    map[string]int
	nsCount    map[string]int
}

// verdictOrder is the ledger's order of verdicts, worst first.
var verdictOrder = []string{contract.VerdictFail, contract.VerdictWarn, contract.VerdictPass, contract.VerdictUnpriced}

func newPageFilter(ws []contract.Workload) *pageFilter {
	f := &pageFilter{count: map[string]int{}, nsIndex: map[string]int{}, nsCount: map[string]int{}}
	for _, w := range ws {
		f.count[w.Verdict]++
		if _, ok := f.nsCount[w.Autoscaler.Namespace]; !ok {
			f.namespaces = append(f.namespaces, w.Autoscaler.Namespace)
		}
		f.nsCount[w.Autoscaler.Namespace]++
	}
	for _, v := range verdictOrder {
		if f.count[v] > 0 {
			f.verdicts = append(f.verdicts, v)
		}
	}
	slices.Sort(f.namespaces)
	for i, ns := range f.namespaces {
		f.nsIndex[ns] = i
	}
	return f
}

// verdictClass is a known verdict's class; any other verdict gets none,
// so it shows only under "all".
func verdictClass(v string) string {
	if slices.Contains(verdictOrder, v) {
		return "v-" + v
	}
	return ""
}

// mark is the marker span of one workload.
func (f *pageFilter) mark(w contract.Workload) string {
	return fmt.Sprintf(`<span class="m %s n%d"></span>`, verdictClass(w.Verdict), f.nsIndex[w.Autoscaler.Namespace])
}

// hides is the rule that hides, when option value of select id is
// chosen, every marked row and details block without class value.
func hides(id, value string) string {
	return fmt.Sprintf("body:has(#%s option[value=%s]:checked) :is(tr,details):has(.m):not(:has(.%s)){display:none}\n", id, value, value)
}

// css is the filter's rules, one per verdict and namespace present.
func (f *pageFilter) css() string {
	var b strings.Builder
	b.WriteString(".filter{display:flex;gap:16px;flex-wrap:wrap;margin:8px 0 16px}\n.filter select{font:inherit}\n")
	for _, v := range f.verdicts {
		b.WriteString(hides("fv", verdictClass(v)))
	}
	if len(f.namespaces) > 1 {
		for i := range f.namespaces {
			b.WriteString(hides("fn", fmt.Sprintf("n%d", i)))
		}
	}
	return b.String()
}

// controls is the form at the top of the page: the verdict and, when
// there is more than one, the namespace to show, each with its count.
func (f *pageFilter) controls() string {
	if len(f.verdicts) == 0 {
		return ""
	}
	total := 0
	for _, n := range f.count {
		total += n
	}
	var b strings.Builder
	b.WriteString(`<form class="filter" aria-label="Filter the autoscalers">` + "\n")
	fmt.Fprintf(&b, `<label>Verdict <select id="fv"><option value="" selected>all (%d)</option>`, total)
	for _, v := range f.verdicts {
		fmt.Fprintf(&b, `<option value="%s">%s (%d)</option>`, verdictClass(v), v, f.count[v])
	}
	b.WriteString("</select></label>\n")
	if len(f.namespaces) > 1 {
		b.WriteString(`<label>Namespace <select id="fn"><option value="" selected>all</option>`)
		for i, ns := range f.namespaces {
			name := ns
			if name == "" {
				name = "(cluster scope)"
			}
			fmt.Fprintf(&b, `<option value="n%d">%s (%d)</option>`, i, stdhtml.EscapeString(name), f.nsCount[ns])
		}
		b.WriteString("</select></label>\n")
	}
	b.WriteString("</form>\n")
	return b.String()
}
