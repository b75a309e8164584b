from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0010_pass_and_play'),
    ]

    operations = [
        migrations.AddField(
            model_name='game',
            name='dice_entered',
            field=models.BooleanField(default=False, help_text='Played with real dice: the players entered every face they rolled.', verbose_name='dice entered'),
        ),
    ]
