#include "ast/lift.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>

#include "ast/mlir_print.hpp"
#include "ast/template.hpp"

namespace shlo {

namespace {

// A line that module assembly writes around the AST (SHLO_SEMANTICS.md 2.7) rather than a
// constructor: the printer's constructors number their results %v0, %v1, ... (and the
// data-parallel node %armean...), so a named result was written by hand. Empty when the line
// is not of that kind (its reason is then the templates').
std::string hand_written_reason(const Instruction& inst, bool after_nodes) {
  const std::string& name = inst.result;
  const bool numbered = name.size() > 2 && name.compare(0, 2, "%v") == 0 &&
                        name.find_first_not_of("0123456789", 2) == std::string::npos;
  if (numbered || name.compare(0, 7, "%armean") == 0) return "";
  if (!after_nodes && inst.op == Op::Constant)
    return "a named constant of the module's prelude (" + name + "), written by module assembly, not by a constructor";
  if (after_nodes)
    return "a named value (" + name + ") after the emitted nodes: the hand-written report-only lines (the loss) of module "
           "assembly, not a constructor";
  return "a named value (" + name + "): written by hand, not by a constructor (constructors number their results %vN)";
}

struct Candidate {
  const CtorSpec* spec;
  const Template* tmpl;
};

// Canonical constructors, longest template first (a template may be a prefix of another:
// weightGrad of weightSgd, adamMNextF of adamWParamF), then in table order.
const std::vector<Candidate>& candidates() {
  static const std::vector<Candidate> list = [] {
    std::vector<Candidate> out;
    for (const auto& c : constructors())
      if (c.canonical && c.arity != Arity::Leaf && !printed_as_comment(c)) out.push_back({&c, &get_template(c.templ)});
    std::stable_sort(out.begin(), out.end(),
                     [](const Candidate& a, const Candidate& b) { return a.tmpl->chunks.size() > b.tmpl->chunks.size(); });
    return out;
  }();
  return list;
}

// "%v12" -> 12.
std::optional<std::int64_t> fresh_number(const std::string& name) {
  if (name.size() < 3 || name.compare(0, 2, "%v") != 0) return std::nullopt;
  for (std::size_t i = 2; i < name.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return std::nullopt;
  if (name.size() > 3 && name[2] == '0') return std::nullopt;
  return std::stoll(name.substr(2));
}

// A recognised block: one constructor's instructions.
struct Block {
  const CtorSpec* spec;
  TemplateMatch match;
  std::size_t first_item, items;
  std::optional<std::int64_t> fresh_start, fresh_end;  // none for the all-reduce block
  std::string result;
  std::vector<std::string> operands;  // by role: left, right
};

// A subtree waiting on the stack for its consumer.
struct Pending {
  ExprPtr expr;
  std::string result;
  std::optional<std::int64_t> fresh_start, fresh_end;
};

}  // namespace

Lifted lift(const Module& m) {
  Lifted out;
  Render& r = out.render;
  LiftReport& report = out.report;
  const Function& f = m.function();
  r.module_name = m.name;
  r.name = f.name;
  for (const auto& a : f.arguments) r.arguments.emplace_back(a.name, to_string(a.type));
  for (const auto& t : f.result_types) r.result_types.push_back(to_string(t));
  r.parenthesized_results = f.parenthesized_results;
  r.return_values = f.return_values;

  // Printed text of every item, and how often every value is used.
  std::vector<std::string> text(f.body.size());
  std::map<std::string, int> uses;
  for (std::size_t i = 0; i < f.body.size(); ++i) {
    if (const auto* inst = std::get_if<Instruction>(&f.body[i])) {
      text[i] = print_instruction(*inst);
      for (const auto& o : inst->operands) ++uses[o];
      ++report.instructions;
    } else {
      ++report.comments;
    }
  }
  for (const auto& v : f.return_values) ++uses[v];

  std::optional<std::int64_t> batch;
  std::set<std::string> notes;
  std::vector<Pending> stack;
  auto flush = [&]() {
    for (auto& p : stack) r.items.push_back({p.expr, p.fresh_start ? *p.fresh_start : -1, ""});
    stack.clear();
  };

  // Uses of a name inside a block (a template may read its operand twice, as softmaxDiv
  // does); a child is absorbed only if nothing outside the block reads it.
  auto uses_inside = [&](const Block& b, const std::string& name) {
    int n = 0;
    for (std::size_t c = 0; c < b.items; ++c)
      for (const auto& o : std::get<Instruction>(f.body[b.first_item + c]).operands) n += o == name;
    return n;
  };

  // The node of a recognised block, its fields recovered from the text. With `absorb`, the
  // pending subtrees on top of the stack whose result is an operand, used once and numbered
  // right before (so the printer puts them back in place) become its children; every other
  // operand is a named leaf. Returns the node and how many stack entries it takes, or
  // throws ExprError when the fields or lengths are inconsistent.
  auto build = [&](const Block& b, bool absorb, std::set<std::string>& node_notes) {
    Expr e;
    e.spec = b.spec;
    std::map<std::string, std::int64_t> nats = b.match.env.nats;
    for (const auto& [template_name, ours] : b.spec->template_renames)
      if (nats.count(template_name)) nats[ours] = nats[template_name];
    for (const char* n : b.spec->nats) {
      if (nats.count(n)) {
        e.nats[n] = nats.at(n);
      } else if (std::string(n) == "N" && (nats.count("B") || batch)) {
        e.nats[n] = nats.count("B") ? nats.at("B") : *batch;
        node_notes.insert(std::string(b.spec->name) + ": N is not printed; taken as the printer's B");
      } else if (!b.spec->has_ds) {
        e.nats[n] = 0;
        node_notes.insert(std::string(b.spec->name) + ": " + n + " is not printed and cannot be recovered (set to 0)");
      }
    }
    for (const char* s : b.spec->strings)
      if (b.match.env.strings.count(s)) e.strings[s] = b.match.env.strings.at(s);
    e.ds = b.match.env.ds;
    if (b.spec->arity == Arity::Family) e.replicas = b.match.env.nats.at("R");
    if (b.spec->has_ds) {
      std::int64_t n = 1;
      for (auto d : e.ds) n *= d;
      e.nats["n"] = n;
    }
    std::vector<ExprPtr> children(b.operands.size());
    std::optional<std::int64_t> start = b.fresh_start;
    std::size_t taken = 0;
    for (std::size_t k = b.operands.size(); absorb && k-- > 0;) {
      const std::string& name = b.operands[k];
      if (taken == stack.size()) break;
      const Pending& top = stack[stack.size() - 1 - taken];
      const bool adjacent = top.result == name && uses[name] == uses_inside(b, name) &&
                            (!start || !top.fresh_end || *top.fresh_end == *start);
      if (adjacent) {
        children[k] = top.expr;
        if (top.fresh_start) start = top.fresh_start;
        ++taken;
      }
    }
    const bool family = b.spec->arity == Arity::Family;
    const std::size_t arity = family ? 1 : b.operands.size();
    for (std::size_t k = 0; k < arity; ++k) {
      if (children[k]) continue;
      Expr leaf;
      leaf.spec = &spec_of(Ctor::operand);
      leaf.strings["name"] = b.operands[k];
      leaf.nats["n"] = eval_length(b.spec->child_lengths[family ? 0 : k], e.nats);
      children[k] = make_expr(std::move(leaf), false);
    }
    if (family) children.assign(static_cast<std::size_t>(e.replicas), children[0]);
    e.children = children;
    return std::tuple<ExprPtr, std::size_t, std::optional<std::int64_t>>{make_expr(std::move(e), false), taken, start};
  };

  // The blocks whose template matches at each line, each checked on its own text (sizes that
  // agree, consecutive %v names), in candidate order; and, where none does, why (the nearest
  // template). The batch and the children depend on what was read before: checked in order below.
  struct LocalMatches {
    std::vector<Block> blocks;
    std::string refused;
    const Candidate* nearest = nullptr;  // the template that matched the most lines here
    std::size_t nearest_lines = 0;
  };
  auto local_matches = [&](std::size_t i) {
    LocalMatches out;
    for (const auto& cand : candidates()) {
      const std::size_t k = cand.tmpl->chunks.size();
      TemplateMatch match;
      std::size_t lines = 0;
      while (lines < k && i + lines < f.body.size() && std::holds_alternative<Instruction>(f.body[i + lines]) &&
             match_chunk(cand.tmpl->chunks[lines], text[i + lines], match))
        ++lines;
      if (lines > out.nearest_lines) out.nearest = &cand, out.nearest_lines = lines;
      if (lines < k) continue;
      const std::string matched = std::string(cand.spec->name) + " matches " + std::to_string(k) + " line(s) here, but ";
      if (!finish_match(match)) {  // derived sizes (a product, the pads) disagree
        if (out.refused.empty()) out.refused = matched + "the sizes it prints do not agree with one another";
        continue;
      }
      // Fresh names are %v<k0>, %v<k0+1>, ... in order.
      std::optional<std::int64_t> start;
      bool ok = true;
      for (std::size_t j = 0; j < match.env.fresh.size() && ok; ++j) {
        const auto n = fresh_number(match.env.fresh[j]);
        ok = n && (j == 0 || *n == *start + static_cast<std::int64_t>(j));
        if (j == 0 && n) start = n;
      }
      if (!ok) {
        if (out.refused.empty()) out.refused = matched + "its results are not consecutive %v names";
        continue;
      }
      Block b{cand.spec, match, i, k, start, start ? std::optional<std::int64_t>(*start + cand.tmpl->fresh_count) : std::nullopt,
              "", {}};
      b.result = cand.spec->arity == Arity::Family ? "%armean" + match.env.strings.at("t") : match.env.fresh.back();
      for (char role : cand.tmpl->operands) b.operands.push_back(match.env.operands.at(role));
      out.blocks.push_back(std::move(b));
    }
    return out;
  };
  std::vector<LocalMatches> at(f.body.size());
  for (std::size_t i = 0; i < f.body.size(); ++i)
    if (std::holds_alternative<Instruction>(f.body[i])) at[i] = local_matches(i);
  // Templates may overlap: gapF's text is broadcastBack's followed by the first two lines of
  // gapBack's, so reading the longest template first can strand the lines after it. The fewest
  // verbatim lines from each line to the end (every way of cutting the text into blocks) decides
  // which blocks lead to a whole reading; among those the candidate order still chooses.
  std::vector<std::size_t> verbatim_after(f.body.size() + 1, 0);
  for (std::size_t i = f.body.size(); i-- > 0;) {
    if (!std::holds_alternative<Instruction>(f.body[i])) {
      verbatim_after[i] = verbatim_after[i + 1];
      continue;
    }
    verbatim_after[i] = 1 + verbatim_after[i + 1];
    for (const auto& b : at[i].blocks) verbatim_after[i] = std::min(verbatim_after[i], verbatim_after[i + b.items]);
  }

  for (std::size_t i = 0; i < f.body.size();) {
    const auto* inst = std::get_if<Instruction>(&f.body[i]);
    if (!inst) {
      flush();
      const auto* comment = std::get_if<Comment>(&f.body[i]);
      // Calls and checks (MLIR test programs) have no expression form: kept as unlifted text.
      r.items.push_back({nullptr, -1, comment ? "    " + comment->text : "    // (a call or check: not lifted)"});
      ++i;
      continue;
    }
    // Build the node of a block starting here: the first block, among those that lead to the
    // fewest verbatim lines, whose node is consistent wins (then any block); a refusal is
    // remembered as the reason for the line should it stay verbatim.
    std::string refused = at[i].refused;
    bool placed = false;
    for (const bool best_only : {true, false}) {
      for (const Block& b : at[i].blocks) {
        const bool best = verbatim_after[i + b.items] == verbatim_after[i];
        if (best != best_only) continue;
        const std::string matched = std::string(b.spec->name) + " matches " + std::to_string(b.items) + " line(s) here, but ";
        // One batch B per render.
        if (b.match.env.nats.count("B") && batch && *batch != b.match.env.nats.at("B")) {
          if (refused.empty())
            refused = matched + "at batch " + std::to_string(b.match.env.nats.at("B")) + " where the render's batch is " + std::to_string(*batch);
          continue;
        }
        // With the pending subtrees as children first; if their lengths do not fit (a value of
        // a constructor we do not have yet, read by a template of one we have), with named
        // leaves; if the block's own fields do not fit, not at all.
        std::set<std::string> node_notes;
        std::optional<std::tuple<ExprPtr, std::size_t, std::optional<std::int64_t>>> built;
        for (const bool absorb : {true, false}) {
          try {
            built = build(b, absorb, node_notes);
            break;
          } catch (const ExprError& err) {
            if (!absorb && refused.empty()) refused = matched + err.what();
          }
        }
        if (!built) continue;
        auto [node, taken, first] = *built;
        stack.resize(stack.size() - taken);
        notes.insert(node_notes.begin(), node_notes.end());
        if (b.match.env.nats.count("B")) batch = b.match.env.nats.at("B");
        ++report.constructors[b.spec->name];
        report.as_nodes += static_cast<int>(b.items);
        stack.push_back({node, b.result, first, b.fresh_end ? b.fresh_end : first});
        i += b.items;
        placed = true;
        break;
      }
      if (placed) break;
    }
    if (placed) continue;
    flush();
    r.items.push_back({nullptr, -1, text[i].substr(0, text[i].size() - 1)});
    const std::string line = text[i].substr(0, text[i].find('\n'));
    report.verbatim_lines.push_back(line);
    // A named result was written by hand: that says more than a template's refusal (which can
    // only be that the names are not %vN).
    if (std::string hand = hand_written_reason(*inst, report.as_nodes > 0); !hand.empty()) refused = hand;
    if (refused.empty()) {
      refused = "no constructor's template matches here";
      if (at[i].nearest && at[i].nearest_lines > 0)
        refused += " (nearest: " + std::string(at[i].nearest->spec->name) + ", whose template's first " +
                   std::to_string(at[i].nearest_lines) + " of " + std::to_string(at[i].nearest->tmpl->chunks.size()) + " lines match)";
    }
    report.why.push_back({inst->location.line, line, refused});
    ++report.verbatim;
    ++i;
  }
  flush();
  r.batch = batch.value_or(1);

  // Canonical choices where text is shared (SHLO_SEMANTICS.md 4.4 (b)).
  for (const auto& [name, count] : report.constructors) {
    const CtorSpec* c = find_constructor(name);
    for (const auto& other : constructors())
      if (!other.canonical && std::string(other.templ) == c->templ)
        notes.insert(std::string("read ") + name + " where " + other.name + " prints the same text (canonical choice)");
    if (name == "addBcast" && report.constructors.count("dotIn"))
      notes.insert("read addBcast(dotIn(...)) where batchOp dense prints the same text (canonical choice)");
    if (name == "flatConvF") notes.insert("read flatConvF where batchOp conv (kH = kW) prints the same text (canonical choice)");
  }
  report.notes.assign(notes.begin(), notes.end());
  return out;
}

}  // namespace shlo
