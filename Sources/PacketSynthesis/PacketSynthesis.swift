/// Placeholder: replaced by the packet synthesis helper.
enum PacketSynthesisPlaceholder {}
