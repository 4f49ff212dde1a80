"""The read-only settings of `CheckpointConfig` and `ModelCheckpoint` (one `ReadOnly` descriptor each)."""

import pytest

from cadence.callbacks import CheckpointConfig, ModelCheckpoint


def test_settings_read_back_and_refuse_assignment_like_properties():
    config = CheckpointConfig(save_checkpoint_steps=7, keep_checkpoint_max=2)
    assert (config.save_checkpoint_steps, config.keep_checkpoint_max) == (7, 2)
    with pytest.raises(AttributeError, match=r"'save_checkpoint_steps'.*no setter"):
        config.save_checkpoint_steps = 3
    assert config.save_checkpoint_steps == 7
    assert "Steps between saves" in (type(config).save_checkpoint_steps.__doc__ or "")


def test_model_checkpoint_exposes_its_config_read_only(tmp_path):
    config = CheckpointConfig(save_checkpoint_steps=5)
    ckpt = ModelCheckpoint("net", str(tmp_path), config)
    assert ckpt.config is config
    assert ckpt.directory == str(tmp_path)
    with pytest.raises(AttributeError, match="no setter"):
        ckpt.config = CheckpointConfig()
