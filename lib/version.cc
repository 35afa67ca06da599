namespace lqs {
const char* Version() { return "0.1.0"; }
}  // namespace lqs
