//go:build !linux

package client_test

func threadCPU() (int64, bool)  { return 0, false }
func processCPU() (int64, bool) { return 0, false }
