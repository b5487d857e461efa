// Package valuesfrom bounds what a HelmRelease's valuesFrom may cost a
// run: the ConfigMaps and Secrets the cluster would refuse are not read,
// each value document is parsed once, and the run composes a bounded
// number of bytes of them.
package valuesfrom

import (
	"encoding/base64"
	"fmt"

	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/internal/object"
)

// What a HelmRelease's valuesFrom may cost the run. helm-controller reads
// each reference from the cluster, where no ConfigMap or Secret holds more
// than MaxConfigData bytes; offline the references resolve to the
// repository's objects, which nothing bounds, and each value document is
// parsed and merged in the parent process. So an object over the API
// server's limit is not read (the cluster never holds it), each document
// is parsed once per run, and the run composes at most
// BudgetBytes of them in all: 250 references to one 4 MiB
// ConfigMap took 85 s, parsing it 250 times.

// MaxConfigData is core.MaxSecretSize (k8s.io/kubernetes
// pkg/apis/core/types.go), the most data ValidateConfigMap and
// ValidateSecret (pkg/apis/core/validation) accept: the sum of a
// ConfigMap's data and binaryData values, or of a Secret's decoded data
// (stringData merged in).
const MaxConfigData = 1 << 20

// BudgetBytes is what a run's valuesFrom references may compose
// together, each counted as often as it is referenced: far above what the
// GitOps repositories read here compose (kilobytes per release).
const BudgetBytes = 64 << 20

// Work is a run's memo of parsed value documents and what is
// left of its budget.
type Work struct {
	left   int64
	parsed map[string]parsedValues
	sizes  map[*object.Object]int // configDataSize of each object asked about
}

type parsedValues struct {
	vals map[string]any
	err  error
}

// NewWork is a run's work, with the whole budget left.
func NewWork() *Work {
	return &Work{left: BudgetBytes, parsed: map[string]parsedValues{}, sizes: map[*object.Object]int{}}
}

// errValuesBudget says the run's budget is spent.
var errValuesBudget = fmt.Errorf("the run's %d MiB of valuesFrom values are spent", BudgetBytes>>20)

// Spend takes n bytes from the budget, or says it is spent (and then
// stays spent: what comes later is not composed either).
func (w *Work) Spend(n int) error {
	if int64(n) > w.left {
		w.left = 0
		return errValuesBudget
	}
	w.left -= int64(n)
	return nil
}

// BudgetFinding says that n of a release's valuesFrom references
// were not read once the run's budget was spent.
func BudgetFinding(o *object.Object, n int) check.Finding {
	return object.Finding(o, check.GitOpsLimit, check.SeverityError,
		fmt.Sprintf("valuesFrom: %d of its references are not read, since %v; rendered without those values", n, errValuesBudget))
}

// Document is a values document (a ConfigMap's or Secret's key, a file of
// the chart), parsed once per run, by its text, and copied for each use:
// the caller merges it and may set paths inside it. The caller has spent
// its length.
func (w *Work) Document(value string) (map[string]any, error) {
	p, ok := w.parsed[value]
	if !ok {
		vals, err := chartutil.ReadValues([]byte(value))
		p = parsedValues{vals: vals, err: err}
		w.parsed[value] = p
	}
	if p.err != nil {
		return nil, p.err
	}
	vals, _ := object.CloneValue(map[string]any(p.vals)).(map[string]any)
	return vals, nil
}

// OverLimit reports whether a ConfigMap or Secret holds more data than
// the API server accepts, and how much, measured once per object.
func (w *Work) OverLimit(kind string, obj *object.Object) (int, bool) {
	size, ok := w.sizes[obj]
	if !ok {
		size = configDataSize(kind, obj.Doc)
		w.sizes[obj] = size
	}
	return size, size > MaxConfigData
}

// configDataSize is the data of a ConfigMap or Secret as the API server
// measures it against MaxConfigData.
func configDataSize(kind string, doc map[string]any) int {
	size := 0
	data, _ := doc["data"].(map[string]any)
	strData, _ := doc["stringData"].(map[string]any)
	for k, v := range data {
		if _, over := strData[k]; kind == "Secret" && over {
			continue
		}
		size += encodedLen(kind == "Secret", fmt.Sprint(v))
	}
	if kind == "Secret" {
		for _, v := range strData {
			size += len(fmt.Sprint(v))
		}
		return size
	}
	bin, _ := doc["binaryData"].(map[string]any)
	for _, v := range bin {
		size += encodedLen(true, fmt.Sprint(v))
	}
	return size
}

// encodedLen is the length of a value, decoded from base64 when it is
// (a Secret's data, a ConfigMap's binaryData) as configData decodes it.
func encodedLen(base64ed bool, s string) int {
	if base64ed {
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			return len(b)
		}
	}
	return len(s)
}
