package valuesfrom

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/capreport/capreport/render/internal/object"
)

// The budget is spent once and stays spent; a document is parsed once and
// handed out as a copy; an object is measured as the API server measures
// it (a Secret's data decoded, its stringData winning over data).
func TestWork(t *testing.T) {
	w := NewWork()
	if w.Spend(BudgetBytes-10) != nil || w.Spend(11) == nil || w.Spend(1) == nil {
		t.Error("the budget was not spent once and for all")
	}
	a, err := w.Document("replicas: 3\n")
	if err != nil {
		t.Fatal(err)
	}
	a["replicas"] = 9
	if b, _ := w.Document("replicas: 3\n"); b["replicas"] != float64(3) {
		t.Errorf("a caller's change reached the next use: %v", b)
	}
	if _, err := w.Document("- a list\n"); err == nil {
		t.Error("a document that is no mapping parsed")
	}
	big := strings.Repeat("x", MaxConfigData)
	cm := &object.Object{Kind: "ConfigMap", Doc: map[string]any{"data": map[string]any{"a": big, "b": "y"}}}
	if size, over := w.OverLimit("ConfigMap", cm); !over || size != MaxConfigData+1 {
		t.Errorf("a ConfigMap of %d bytes: over %v, size %d", MaxConfigData+1, over, size)
	}
	secret := &object.Object{Kind: "Secret", Doc: map[string]any{
		"data":       map[string]any{"a": base64.StdEncoding.EncodeToString([]byte(big)), "b": "not counted"},
		"stringData": map[string]any{"b": "yy"},
	}}
	if size, over := w.OverLimit("Secret", secret); !over || size != MaxConfigData+2 {
		t.Errorf("a Secret of %d decoded bytes: over %v, size %d", MaxConfigData+2, over, size)
	}
}
