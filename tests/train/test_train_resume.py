import json
import os
import signal
import subprocess
import sys
import time

import torch

from helpers.models import MICRO
from helpers.training import data_args

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EPOCHS, STEPS_PER_EPOCH = 4, 4  # epoch_length 16 / batch 4


def _train_cmd(shards, folder, *extra):
    return [
        sys.executable, os.path.join(ROOT, "train.py"), "fit", "--config", "tiny",
        "--model.model_config", MICRO, "--model.warmup_steps", "2",
        "--data", "mineclip.data.datamodule.ClipDataModule", "--data.init_args", json.dumps(data_args(shards)),
        "--checkpoint.dirpath", str(folder / "ckpt"), "--last_checkpoint.every_n_train_steps", "1",
        "--trainer.max_epochs", str(EPOCHS), "--trainer.logger", "false", "--trainer.limit_val_batches", "0",
        "--trainer.enable_progress_bar", "false", "--trainer.default_root_dir", str(folder), *extra,
    ]


def test_run_killed_with_sigkill_resumes_and_finishes_with_the_same_number_of_steps(shards, tmp_path):
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # for helpers.slow_steps
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONWARNINGS": "ignore", "PYTHONPATH": tests + os.pathsep + os.environ.get("PYTHONPATH", "")}
    last = tmp_path / "ckpt" / "last.ckpt"
    slow = ["--trainer.callbacks+", "helpers.slow_steps.SlowSteps"]  # time to kill it mid-run
    proc = subprocess.Popen(_train_cmd(shards, tmp_path, *slow), cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 240
    step = 0
    while time.time() < deadline and proc.poll() is None:
        if last.exists():
            step = torch.load(last, weights_only=False)["global_step"]
            if step >= STEPS_PER_EPOCH + 2:  # mid-way through epoch 2 of 10
                break
        time.sleep(0.2)
    assert proc.poll() is None, f"training ended before it could be killed: {proc.stderr.read().decode()[-2000:]}"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    killed = torch.load(last, weights_only=False)  # whole: written atomically
    assert 0 < killed["global_step"] < EPOCHS * STEPS_PER_EPOCH
    done = subprocess.run(_train_cmd(shards, tmp_path, "--ckpt_path", "last"), cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    final = torch.load(last, weights_only=False)
    assert final["global_step"] == EPOCHS * STEPS_PER_EPOCH  # what an uninterrupted run does
    sched = final["lr_schedulers"][0]
    assert sched["last_epoch"] == EPOCHS * STEPS_PER_EPOCH  # LR schedule position follows the step
