package config

import "strings"

// Key names an assumption; its string is the annotation suffix after
// "capreport.io/".
type Key string

// The assumption keys of product.md, with their .capreport.yaml spelling in
// YAMLName.
const (
	KeyDeadTime            Key = "dead-time"
	KeyPodRate             Key = "pod-rate"
	KeyLatencyTarget       Key = "latency-target"
	KeyOverload            Key = "overload"
	KeyDemand              Key = "demand"
	KeyStep                Key = "step"
	KeyMetricWindow        Key = "metric-window"
	KeySaturatedEfficiency Key = "saturated-efficiency"
	KeySignal              Key = "signal"
)

// AllKeys lists every assumption key in a fixed order (a new slice each
// call: no caller can reorder or extend the list for the others).
func AllKeys() []Key {
	return []Key{KeyDeadTime, KeyPodRate, KeyLatencyTarget, KeyOverload, KeyDemand,
		KeyStep, KeyMetricWindow, KeySaturatedEfficiency, KeySignal}
}

// YAMLName is the key's camelCase spelling in .capreport.yaml.
func (k Key) YAMLName() string {
	parts := strings.Split(string(k), "-")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// keyForYAML maps a camelCase name back to its Key.
func keyForYAML(name string) (Key, bool) {
	for _, k := range AllKeys() {
		if k.YAMLName() == name {
			return k, true
		}
	}
	return "", false
}
