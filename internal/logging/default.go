package logging

import "log/slog"

// OrDefault is the one policy for a value given no logger: it logs to the
// process's default logger (slog.Default), as the binary's own values do
// when it hands them none (the store opened by sqlite.Open and
// postgres.Open). Constructors call it once, where the value is built, and
// keep what it returns; a caller that wants silence passes
// slog.New(slog.DiscardHandler).
func OrDefault(log *slog.Logger) *slog.Logger {
	if log != nil {
		return log
	}
	return slog.Default()
}
