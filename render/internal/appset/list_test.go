package appset

import "testing"

// Ported from applicationset/generators/list_test.go (TestGenerateListParams, TestGenerateListParamsGoTemplate)
// and matrix_test.go's elementsYaml case.
func TestListGenerator(t *testing.T) {
	for _, c := range []genCase{
		{
			name:      "TestGenerateListParams/plain",
			generator: `{list: {elements: [{cluster: cluster, url: url}]}}`,
			want:      []map[string]any{{"cluster": "cluster", "url": "url"}},
		},
		{
			name:      "TestGenerateListParams/values",
			generator: `{list: {elements: [{cluster: cluster, url: url, values: {foo: bar}}]}}`,
			want:      []map[string]any{{"cluster": "cluster", "url": "url", "values.foo": "bar"}},
		},
		{
			name:       "TestGenerateListParamsGoTemplate/plain",
			goTemplate: true,
			generator:  `{list: {elements: [{cluster: cluster, url: url}]}}`,
			want:       []map[string]any{{"cluster": "cluster", "url": "url"}},
		},
		{
			name:       "TestGenerateListParamsGoTemplate/values",
			goTemplate: true,
			generator:  `{list: {elements: [{cluster: cluster, url: url, values: {foo: bar}}]}}`,
			want:       []map[string]any{{"cluster": "cluster", "url": "url", "values": map[string]any{"foo": "bar"}}},
		},
		{
			name:       "goTemplate keeps types (numbers are float64, as decoded from JSON)",
			goTemplate: true,
			generator:  `{list: {elements: [{replicas: 3, enabled: true, nested: {a: [1, x]}}]}}`,
			want:       []map[string]any{{"replicas": 3.0, "enabled": true, "nested": map[string]any{"a": []any{1.0, "x"}}}},
		},
		{
			name:      "legacy syntax takes strings only",
			generator: `{list: {elements: [{replicas: 3}]}}`,
			wantErr:   "error parsing value as string",
		},
		{
			name:      "an element must be an object",
			generator: `{list: {elements: [prod]}}`,
			wantErr:   "error unmarshling list element",
		},
		{
			name:      "elementsYaml is appended after elements, as written",
			generator: "{list: {elements: [{a: '1'}], elementsYaml: \"- a: '2'\\n- a: 3\\n\"}}",
			want:      []map[string]any{{"a": "1"}, {"a": "2"}, {"a": 3.0}},
		},
		{
			name:      "invalid elementsYaml",
			generator: `{list: {elementsYaml: "a: b"}}`,
			wantErr:   "error unmarshling decoded ElementsYaml",
		},
		{
			name:       "empty element: an empty parameter set",
			goTemplate: true,
			generator:  `{list: {elements: [{}]}}`,
			want:       []map[string]any{{}},
		},
	} {
		t.Run(c.name, c.run)
	}
}

// Ported from generator_spec_processor_test.go (TestTransForm, with list elements in place of clusters).
func TestSelector(t *testing.T) {
	elements := `[{name: production_01/west, server: "https://production-01.example.com", env: production},
	              {name: staging-01, server: "https://staging-01.example.com", env: staging}]`
	for _, c := range []genCase{
		{
			name:      "server filter",
			generator: `{list: {elements: ` + elements + `}, selector: {matchLabels: {server: "https://production-01.example.com"}}}`,
			want:      []map[string]any{{"name": "production_01/west", "server": "https://production-01.example.com", "env": "production"}},
		},
		{
			name:      "matchExpressions NotIn",
			generator: `{list: {elements: ` + elements + `}, selector: {matchExpressions: [{key: env, operator: NotIn, values: [production]}]}}`,
			want:      []map[string]any{{"name": "staging-01", "server": "https://staging-01.example.com", "env": "staging"}},
		},
		{
			name:       "goTemplate: nested parameters are matched flattened",
			goTemplate: true,
			generator:  `{list: {elements: [{c: {env: a}}, {c: {env: b}}]}, selector: {matchExpressions: [{key: c.env, operator: In, values: [b]}]}}`,
			want:       []map[string]any{{"c": map[string]any{"env": "b"}}},
		},
		{
			name:      "Exists and DoesNotExist",
			generator: `{list: {elements: [{a: "1"}, {b: "2"}]}, selector: {matchExpressions: [{key: a, operator: Exists}, {key: b, operator: DoesNotExist}]}}`,
			want:      []map[string]any{{"a": "1"}},
		},
		{
			name:      "empty selector selects everything",
			generator: `{list: {elements: [{a: "1"}, {b: "2"}]}, selector: {}}`,
			want:      []map[string]any{{"a": "1"}, {"b": "2"}},
		},
		{
			name:      "bad operator",
			generator: `{list: {elements: [{a: "1"}]}, selector: {matchExpressions: [{key: a, operator: Gt, values: ["1"]}]}}`,
			wantErr:   `"Gt" is not a valid pod selector operator`,
		},
		{
			name:      "bad key",
			generator: `{list: {elements: [{a: "1"}]}, selector: {matchLabels: {"path[0]": x}}}`,
			wantErr:   "error parsing label selector",
		},
	} {
		t.Run(c.name, c.run)
	}
}
