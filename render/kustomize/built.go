package kustomize

import (
	"fmt"
	"math"

	"sigs.k8s.io/kustomize/api/resmap"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/capreport/capreport/render/internal/kustread"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// Unstub takes the marker off every stubbed CRD the build yields, and
// reports whether one came out holding more than its stub, or as another
// kind (touched: the build must read the real files).
func Unstub(rm resmap.ResMap) (touched bool) {
	for _, r := range rm.Resources() {
		if r.Field(kustread.Marker) == nil {
			continue
		}
		fields, err := r.Fields()
		if err != nil || kustread.Touched(r.GetKind(), fields) {
			return true
		}
		if err := r.PipeE(kyaml.Clear(kustread.Marker)); err != nil {
			return true
		}
	}
	return false
}

// BuiltDocs are krusty's resources as `kustomize build` prints them, taken
// from its resource nodes rather than printed and parsed again (the
// printing and the parse were an eighth of a large build). kustomize prints
// a resource through JSON, so a float with an integral value prints as an
// integer; asPrinted makes the documents say the same.
func BuiltDocs(rm resmap.ResMap, maxObjects int) ([]map[string]any, error) {
	res := rm.Resources()
	docs := make([]map[string]any, 0, len(res))
	for _, r := range res {
		raws, err := yamldoc.DecodeNode(r.YNode())
		if err != nil {
			return nil, fmt.Errorf("decoding krusty output: %w", err)
		}
		for _, raw := range raws {
			docs = append(docs, asPrinted(raw.Doc).(map[string]any))
		}
		if len(docs) > maxObjects {
			return nil, fmt.Errorf("%w: more than %d objects", yamldoc.ErrTooManyObjects, maxObjects)
		}
	}
	return docs, nil
}

// asPrinted turns, in place, every float of v that JSON prints without a
// fraction or exponent into the int64 YAML reads it back as.
func asPrinted(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = asPrinted(e)
		}
	case []any:
		for i, e := range x {
			x[i] = asPrinted(e)
		}
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e21 && x >= math.MinInt64 && x < math.MaxInt64 {
			return int64(x)
		}
	}
	return v
}
