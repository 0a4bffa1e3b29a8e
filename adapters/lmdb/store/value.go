package store

import "fmt"

// The stored value of a person is [age uint8][name bytes]; the key is the email's raw bytes.

// EncodeValue appends the stored value of a person to dst.
func EncodeValue(dst []byte, age int, name []byte) ([]byte, error) {
	if age < 0 || age > 255 {
		return dst, fmt.Errorf("age %d does not fit the stored uint8", age)
	}
	dst = append(dst, byte(age))
	return append(dst, name...), nil
}

// DecodeValue splits a stored value into age and name; ok is false for a value too short to be one.
func DecodeValue(v []byte) (age int, name []byte, ok bool) {
	if len(v) == 0 {
		return 0, nil, false
	}
	return int(v[0]), v[1:], true
}
