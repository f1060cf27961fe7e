"""ANSWERS to exercises 22 and 11, read after solving: ``python -m trainers.train_eagle`` trains the EAGLE head.

It trains the committed EAGLE head, and distils the draft it is compared with.

CONTAINS THE ANSWERS to exercises 22 and 11: read it after solving (the trainers live outside the
speckata package, so the grader's sandbox never holds them).

The head (``speckata.heads.eagle.EagleHead``, about 83k parameters) learns on the committed
character-level target, which stays frozen: the target's last hidden states of every training
window are computed once under ``torch.no_grad()``, and only the head learns. At position t the
head reads the target's feature f_t and the embedding (the target's, frozen) of the token one
step ahead, x_{t+1}, and predicts f_{t+1}, teacher-forced on the target's own features, with
EAGLE's uniform noise (U(-0.1, 0.1)) added to the features it reads so that it learns to draft
from slightly wrong ones. The loss is EAGLE's: the smooth-L1 regression of the feature plus 0.1
times the cross-entropy of the target's head on the predicted feature against the target's
distribution at f_{t+1}. AdamW, a linear warm-up and a cosine decay, a fixed number of steps,
everything seeded.

The independent draft the theory page compares it with is the committed draft after exercise 11's
distillation with its defaults (400 steps of 16 training windows of 128 characters, seed 0), run
with exercise 11's ``distill`` from ``solutions/`` (``--graded FOLDER`` to take another folder's).

Weights go to ``speckata/models/weights/eagle_head.pt`` and ``distilled_draft.pt`` (float16), the
settings, losses, held-out agreement and times to ``weights/eagle.json``. Tests and exercises
only ever load these files. Options: ``--only head`` / ``--only distilled_draft``, ``--scale X``
(multiply the step counts, and below 1 the head's training windows, e.g. 0.05 for a smoke run),
``--out DIR``, ``--threads N``, ``--graded FOLDER``, ``--on deep`` (the same recipes on the
target's 24-layer twin, frozen as well: ``eagle_head_deep.pt``, ``distilled_draft_deep.pt`` and
``eagle_deep.json``, for ``python -m speckata.bench heads --model deep``).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

from speckata.heads.eagle import WEIGHTS, EagleHead
from speckata.models.pretrained import HEAD_TARGETS, load_draft, on_target, text_windows
from trainers.train_models import as_committed, end_progress, learning_rate, progress_bar, step_and_smooth

HEAD = {"shape": {"width": 128, "heads": 2, "inner": 64, "mlp_width": 64}, "steps": 3000, "batch": 16, "window": 128,
        "lr": 3e-3, "cls_weight": 0.1, "noise": 0.1, "seed": 22}
DISTILLED = {"steps": 400, "window": 128, "seed": 0, "recipe": "exercise 11's distill with its defaults"}


@torch.no_grad()
def all_features(target, windows: torch.Tensor) -> torch.Tensor:
    return torch.cat([target.hidden_states(chunk) for chunk in windows.split(64)])


def predicted_features(head: EagleHead, target, features: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """Row t reads (f_t, embedding of ids[t + 1]); the last feature has no next token and is not read."""
    read = torch.cat((target.token_embedding(ids[..., 1:]), features[..., :-1, :]), dim=-1)
    return head.layer(head.fc(read))


def eagle_losses(target, predicted: torch.Tensor, following: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """EAGLE's two terms: smooth L1 on the features, and the target's soft labels through its head."""
    regression = F.smooth_l1_loss(predicted, following)
    with torch.no_grad():
        soft_labels = F.softmax(target.head(following), dim=-1)
    classification = torch.sum(-soft_labels * F.log_softmax(target.head(predicted), dim=-1), dim=-1).mean()
    return regression, classification


@torch.no_grad()
def held_out_agreement(target, head: EagleHead, window: int) -> dict:
    """Teacher-forced, on every held-out window: the losses, and how often the head's next token
    (the target's head on the predicted feature) is the target's own greedy choice."""
    ids = text_windows("held_out", window)
    features = all_features(target, ids)
    predicted = predicted_features(head, target, features, ids)
    regression, classification = eagle_losses(target, predicted, features[:, 1:])
    agree = (target.head(predicted).argmax(-1) == target.head(features[:, 1:]).argmax(-1)).float().mean()
    return {"regression": round(float(regression), 4), "classification": round(float(classification), 4),
            "top1_agreement": round(float(agree), 4)}


def train_head(settings: dict, scale: float, on: str = "shipped") -> tuple[EagleHead, dict]:
    target = HEAD_TARGETS[on]()
    target.requires_grad_(False)
    windows = text_windows("train", settings["window"])
    if scale < 1:  # a smoke run: fewer windows to compute the features of, too
        windows = windows[: max(settings["batch"], int(windows.shape[0] * scale))]
    started = time.time()
    features = all_features(target, windows)
    torch.manual_seed(settings["seed"])
    head = EagleHead(**settings["shape"])
    optimizer = torch.optim.AdamW(head.parameters(), lr=settings["lr"], betas=(0.9, 0.99), weight_decay=0.0)
    generator = torch.Generator().manual_seed(settings["seed"])
    steps = max(1, int(settings["steps"] * scale))
    smoothed = None
    for step in range(steps):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, steps, settings["lr"])
        rows = torch.randint(0, windows.shape[0], (settings["batch"],), generator=generator)
        read = features[rows]
        noise = (torch.rand(read.shape, generator=generator) * 2 - 1) * settings["noise"]
        predicted = predicted_features(head, target, read + noise, windows[rows])
        regression, classification = eagle_losses(target, predicted, read[:, 1:])
        loss = regression + settings["cls_weight"] * classification
        smoothed = step_and_smooth(optimizer, loss, smoothed)
        if step % 10 == 0 or step == steps - 1:
            progress_bar("eagle", step + 1, steps, smoothed, started)
    seconds = end_progress(started)
    as_committed(head)
    record = dict(settings, steps_run=steps, parameters=sum(p.numel() for p in head.parameters()),
                  train_loss_smoothed=round(smoothed, 4), held_out=held_out_agreement(target, head, settings["window"]),
                  seconds=round(seconds, 1))
    return head, record


def distil_draft(settings: dict, scale: float, graded: str, on: str = "shipped"):
    from speckata.real.graded import graded_function

    distill = graded_function("ex11_distill_draft", "distill", graded)
    measure = graded_function("ex11_distill_draft", "measure_agreement", graded)
    target, draft = HEAD_TARGETS[on](), load_draft()
    held_out = text_windows("held_out", settings["window"])
    before = measure(draft, target, held_out)
    started = time.time()
    steps = max(1, int(settings["steps"] * scale))
    contexts = text_windows("train", settings["window"])
    distill(draft, target, contexts, steps, torch.Generator().manual_seed(settings["seed"]))
    seconds = time.time() - started
    with torch.no_grad():
        for parameter in draft.parameters():
            parameter.copy_(parameter.to(torch.float16).float())
    after = measure(draft, target, held_out)
    record = dict(settings, steps_run=steps, config=draft.config.as_dict(), parameters=draft.num_parameters(),
                  graded_folder=graded, held_out_alpha_top1_before=[round(v, 4) for v in before],
                  held_out_alpha_top1_after=[round(v, 4) for v in after], seconds=round(seconds, 1))
    return draft, record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m trainers.train_eagle", description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=("head", "distilled_draft"), action="append", help="train only this")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the step counts")
    parser.add_argument("--out", type=Path, default=WEIGHTS, help="folder for the weights")
    parser.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    parser.add_argument("--graded", default="solutions", help="the folder whose exercise 11 distils the draft")
    parser.add_argument("--on", choices=sorted(HEAD_TARGETS), default="shipped",
                        help="the target to train on: the shipped one, or its 24-layer twin (deep)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    record_path = args.out / on_target("eagle", args.on, ".json")
    record = json.loads(record_path.read_text()) if record_path.is_file() else {}
    only = args.only or ["head", "distilled_draft"]
    if "head" in only:
        head, record["head"] = train_head(HEAD, args.scale, args.on)
        torch.save({key: value.to(torch.float16) for key, value in head.state_dict().items()},
                   args.out / on_target("eagle_head", args.on, ".pt"))
        print(f"eagle head: {record['head']['parameters']:,} parameters, held-out {record['head']['held_out']}, "
              f"{record['head']['seconds']} s", file=sys.stderr)
    if "distilled_draft" in only:
        draft, record["distilled_draft"] = distil_draft(DISTILLED, args.scale, args.graded, args.on)
        torch.save({key: value.to(torch.float16) for key, value in draft.state_dict().items()},
                   args.out / on_target("distilled_draft", args.on, ".pt"))
        print(f"distilled draft: α, top-1 {record['distilled_draft']['held_out_alpha_top1_before']} -> "
              f"{record['distilled_draft']['held_out_alpha_top1_after']}", file=sys.stderr)
    record.update(python=platform.python_version(), torch=torch.__version__, threads=args.threads,
                  target=f"speckata/models/weights/{'target' if args.on == 'shipped' else 'deep_target'}.pt (frozen)",
                  command="python -m trainers.train_eagle" + (f" --scale {args.scale}" if args.scale != 1 else "")
                  + (f" --on {args.on}" if args.on != "shipped" else ""))
    record_path.write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
