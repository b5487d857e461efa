package artifact

import "reflect"

// decodedSize is about how many bytes v holds in memory: its own size,
// and what its pointers, slices, strings and maps reach. It counts a
// list of numbers by its length alone, without walking it.
func decodedSize(v reflect.Value) int64 {
	return int64(v.Type().Size()) + reachedSize(v)
}

// reachedSize is what v reaches beyond its own size.
func reachedSize(v reflect.Value) int64 {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return 0
		}
		return decodedSize(v.Elem())
	case reflect.String:
		return int64(v.Len())
	case reflect.Slice:
		n := int64(v.Cap()) * int64(v.Type().Elem().Size())
		if holdsReferences(v.Type().Elem()) {
			for i := range v.Len() {
				n += reachedSize(v.Index(i))
			}
		}
		return n
	case reflect.Map:
		n := int64(0)
		for it := v.MapRange(); it.Next(); {
			n += decodedSize(it.Key()) + decodedSize(it.Value())
		}
		return n
	case reflect.Struct:
		n := int64(0)
		for i := range v.NumField() {
			n += reachedSize(v.Field(i))
		}
		return n
	}
	return 0
}

// holdsReferences tells whether a value of t can reach memory beyond its
// own size.
func holdsReferences(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.String, reflect.Slice, reflect.Map, reflect.Interface:
		return true
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsReferences(t.Field(i).Type) {
				return true
			}
		}
	case reflect.Array:
		return holdsReferences(t.Elem())
	}
	return false
}
