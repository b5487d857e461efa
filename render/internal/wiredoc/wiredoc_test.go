package wiredoc

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"testing"
	"unsafe"
)

// A document comes back holding the very types it was given.
func TestRoundTrip(t *testing.T) {
	docs := map[string]any{
		"nil":          nil,
		"bools":        []any{true, false},
		"scalars":      map[string]any{"s": "text", "empty": "", "i": int64(-42), "f": 0.5, "big": int64(math.MaxInt64), "neg0": math.Copysign(0, -1)},
		"lists":        map[string]any{"empty": []any{}, "nil": []any(nil), "nested": []any{[]any{map[string]any{}}}},
		"nil map":      map[string]any(nil),
		"go numbers":   []any{int(7), int8(-8), int16(16), int32(-32), uint(1), uint8(8), uint16(16), uint32(32), uint64(math.MaxUint64), float32(1.5)},
		"go lists":     map[string]any{"labels": map[string]string{"app": "web", "": ""}, "args": []string{"-v", ""}, "items": []map[string]any{{"a": int64(1)}, nil}},
		"go nils":      []any{[]string(nil), map[string]string(nil), []map[string]any(nil), []string{}, map[string]string{}, []map[string]any{}},
		"long list":    map[string]any{"items": longList(1000)},
		"unicode keys": map[string]any{"ключ": "значение", "a\x00b": "\xff"},
		"manifest": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "spec": map[string]any{
			"replicas": int64(3), "template": map[string]any{"spec": map[string]any{"containers": []any{
				map[string]any{"name": "web", "resources": map[string]any{"requests": map[string]any{"cpu": "250m"}}},
			}, "securityContext": map[string]any{"supplementalGroups": []any{}}}},
		}},
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			b, err := Append(nil, doc)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, doc) {
				t.Errorf("got %#v\nwant %#v", got, doc)
			}
			if in, err := DecodeString(string(b)); err != nil || !reflect.DeepEqual(in, doc) {
				t.Errorf("DecodeString: got %#v, %v\nwant %#v", in, err, doc)
			}
			if m, ok := got.(map[string]any); ok && m["neg0"] != nil && !math.Signbit(m["neg0"].(float64)) {
				t.Errorf("-0 came back %v", m["neg0"])
			}
		})
	}
}

func TestAppendRefuses(t *testing.T) {
	deep := any("leaf")
	for range MaxDepth + 2 {
		deep = []any{deep}
	}
	for name, v := range map[string]any{
		"a struct":        struct{ A int }{1},
		"a json.Number":   json.Number("1"),
		"a map of ints":   map[string]int{"a": 1},
		"inside a list":   []any{"ok", complex(1, 2)},
		"too deep":        deep,
		"inside a []map":  []map[string]any{{"a": struct{}{}}},
		"map of any keys": map[any]any{"a": 1},
	} {
		if _, err := Append(nil, v); err == nil {
			t.Errorf("%s: encoded", name)
		}
	}
}

// Bytes Append did not write are refused, never a panic or a huge
// allocation.
func TestDecodeCorrupt(t *testing.T) {
	valid, err := Append(nil, map[string]any{"a": []any{"b", int64(1), 2.5}})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"empty":            {},
		"unknown tag":      {200},
		"trailing bytes":   append(append([]byte{}, valid...), tagNil),
		"huge map count":   {tagMap, 0xff, 0xff, 0xff, 0xff, 0x0f},
		"huge list count":  {tagList, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
		"string past end":  {tagString, 10, 'a'},
		"short float":      {tagFloat64, 1, 2},
		"bad varint":       {tagInt64, 0x80},
		"map list of list": {tagMapList, 1, tagList, 0},
		"too deep":         bytes.Repeat([]byte{tagList, 1}, MaxDepth+2),
		"int8 too big":     {tagInt8, 0x90, 0x03},      // varint 200
		"uint16 too big":   {tagUint16, 0x80, 0x80, 4}, // uvarint 65536
		"duplicate key":    {tagMap, 2, 1, 'a', tagNil, 1, 'a', tagTrue},
		"duplicate label":  {tagStrMap, 2, 1, 'a', 0, 1, 'a', 0},
	}
	for i := 1; i < len(valid); i++ {
		cases[fmt.Sprintf("truncated at %d", i)] = valid[:i]
	}
	for name, b := range cases {
		if v, err := Decode(b); err == nil {
			t.Errorf("%s: decoded %#v", name, v)
		}
	}
}

func longList(n int) []any {
	l := make([]any, n)
	for i := range l {
		l[i] = int64(i)
	}
	return l
}

// Lists nested in lists, each claiming every byte left, are refused
// without allocating more than a small multiple of the input.
func TestDecodeBoundedAllocation(t *testing.T) {
	// 2,000 lists, each the first element of the one before and claiming
	// every byte after its count (each count a 2-byte uvarint), then 2,000
	// nils: each count passes the check against the bytes left.
	const levels, tail = 2000, 2000
	size := 3*levels + tail
	var b []byte
	for i := 1; i <= levels; i++ {
		b = binary.AppendUvarint(append(b, tagList), uint64(size-3*i))
	}
	b = append(b, make([]byte, tail)...) // tagNil is 0
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := Decode(b); err == nil {
		t.Fatal("decoded")
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("a %d-byte input allocated %d MB before it was refused", len(b), got>>20)
	}
}

// FuzzDecode: whatever the bytes, Decode returns or refuses; what it
// returns encodes and decodes to itself.
func FuzzDecode(f *testing.F) {
	for _, v := range []any{nil, map[string]any{"a": []any{int64(1), "x", 2.5, true, []any{}}}, []string{"a"}, map[string]string{"k": "v"}} {
		b, err := Append(nil, v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want, wantN := binary.Uvarint(b)
		if got, n := Uvarint(string(b)); got != want || n != wantN {
			t.Fatalf("Uvarint(%q) = %d, %d; binary.Uvarint gives %d, %d", b, got, n, want, wantN)
		}
		wantS, wantSN := binary.Varint(b)
		if got, n := Varint(string(b)); got != wantS || n != wantSN {
			t.Fatalf("Varint(%q) = %d, %d; binary.Varint gives %d, %d", b, got, n, wantS, wantSN)
		}
		v, err := Decode(b)
		if err != nil {
			return
		}
		again, err := Append(nil, v)
		if err != nil {
			t.Fatalf("decoded %#v but cannot encode it: %v", v, err)
		}
		w, err := Decode(again)
		if err != nil {
			t.Fatalf("re-encoding of %#v does not decode: %v", v, err)
		}
		if !sameValue(v, w) {
			t.Fatalf("round trip changed %#v into %#v", v, w)
		}
	})
}

// sameValue is reflect.DeepEqual with floats compared by their bits (a
// NaN is itself).
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case float32:
		y, ok := b.(float32)
		return ok && math.Float32bits(x) == math.Float32bits(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for k, e := range x {
			if f, ok := y[k]; !ok || !sameValue(e, f) {
				return false
			}
		}
		return true
	case []map[string]any:
		y, ok := b.([]map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// DecodeString cuts the strings it decodes from the string it is given,
// so decoding a kept file copies none of them.
func TestDecodeStringShares(t *testing.T) {
	doc := map[string]any{"metadata": map[string]any{"name": "web", "labels": map[string]string{"app": "web"}}, "args": []string{"-v"}}
	b, err := Append(nil, doc)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	v, err := DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	within := func(x string) bool {
		start := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		p := uintptr(unsafe.Pointer(unsafe.StringData(x)))
		return p >= start && p+uintptr(len(x)) <= start+uintptr(len(s))
	}
	m := v.(map[string]any)
	md := m["metadata"].(map[string]any)
	for _, x := range []string{md["name"].(string), md["labels"].(map[string]string)["app"], m["args"].([]string)[0]} {
		if !within(x) {
			t.Errorf("%q was copied, not cut from the encoding", x)
		}
	}
}

// Uvarint and Varint read what binary.Uvarint and binary.Varint read,
// and refuse what they refuse.
func TestUvarint(t *testing.T) {
	cases := []string{"", "\x00", "\x7f", "\x80", "\x80\x01", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
		"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", "\x96\x01rest"}
	for _, v := range []uint64{0, 1, 127, 128, 300, math.MaxUint32, math.MaxUint64} {
		cases = append(cases, string(binary.AppendUvarint(nil, v)))
	}
	for _, c := range cases {
		want, wantN := binary.Uvarint([]byte(c))
		if got, n := Uvarint(c); got != want || n != wantN {
			t.Errorf("Uvarint(%q) = %d, %d; binary.Uvarint gives %d, %d", c, got, n, want, wantN)
		}
		wantS, wantSN := binary.Varint([]byte(c))
		if got, n := Varint(c); got != wantS || n != wantSN {
			t.Errorf("Varint(%q) = %d, %d; binary.Varint gives %d, %d", c, got, n, wantS, wantSN)
		}
	}
}
